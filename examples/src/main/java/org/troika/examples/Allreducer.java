package org.troika.examples;

import org.troika.mpi.Communicator;
import org.troika.mpi.Op;

/**
 * Sums an array across the ranks of a job, in place. The seam between training code and the collective layer,
 * so the same model code runs under MPI, in an elastic job or on Spark, and in unit tests.
 */
public interface Allreducer {
    /** Replaces {@code data} by the element-wise sum of every rank's {@code data}. */
    void sumInPlace(double[] data);

    /** How many ranks take part. */
    int size();

    /** Over an MPI communicator. */
    static Allreducer of(Communicator comm) {
        return new Allreducer() {
            @Override
            public void sumInPlace(double[] data) {
                comm.allreduce(data, Op.SUM);
            }

            @Override
            public int size() {
                return comm.size();
            }
        };
    }

    /** Over whichever communicator {@code comm} gives at each call (e.g. {@code ElasticWorld::current}). */
    static Allreducer following(java.util.function.Supplier<Communicator> comm) {
        return new Allreducer() {
            @Override
            public void sumInPlace(double[] data) {
                comm.get().allreduce(data, Op.SUM);
            }

            @Override
            public int size() {
                return comm.get().size();
            }
        };
    }

    /** One process alone: the sum is the data itself. */
    static Allreducer local() {
        return new Allreducer() {
            @Override
            public void sumInPlace(double[] data) {}

            @Override
            public int size() {
                return 1;
            }
        };
    }
}
