package org.troika.worker;

import org.troika.mpi.Mpi;
import org.troika.mpi.MpiLibrary;
import org.troika.mpi.Op;

/**
 * The Java rank of {@code troika doctor}'s {@code java-ranks} check: binds the job's libmpi through troika-mpi, sums
 * the ranks with an allreduce and prints one line, {@code troika-mpi-check rank R/S backend=... sum=N}. Exits 3 with
 * the reason on stderr when MPI cannot be loaded.
 */
public final class MpiCheck {
    private MpiCheck() {}

    public static void main(String[] args) {
        try (Mpi mpi = Mpi.init()) {
            int[] v = {Mpi.world().rank()};
            Mpi.world().allreduce(v, Op.SUM);
            System.out.println("troika-mpi-check rank " + Mpi.world().rank() + "/" + Mpi.world().size() + " backend="
                    + mpi.backend().getClass().getSimpleName() + " libraries=" + MpiLibrary.candidates(System.getenv())
                    + " sum=" + v[0]);
        } catch (RuntimeException | LinkageError e) {
            System.err.println("troika-mpi-check: " + e);
            System.exit(3);
        }
    }
}
