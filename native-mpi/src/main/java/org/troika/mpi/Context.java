package org.troika.mpi;

import org.troika.mpi.spi.NativeMpi;

/**
 * What every communicator of a process shares: the native layer, the handles of the predefined datatypes and ops
 * (looked up once), the ABI's special ranks and tag bound, whether heap arrays go to MPI without a copy, and the
 * per-thread staging area for those that do not.
 */
final class Context {
    final NativeMpi mpi;
    final long[] types = new long[Datatype.values().length];
    final long[] ops = new long[Op.values().length];
    final long byteType;
    final int anySource;
    final int procNull;
    final int tagUpperBound;
    final long requestNull;
    final int undefined;
    /** Heap arrays are passed to blocking collectives as they are (FFM critical downcalls) instead of copied. */
    final boolean pinArrays;
    final ThreadLocal<Staging> staging;
    private final ThreadLocal<Request.Scratch> requestScratch = ThreadLocal.withInitial(Request.Scratch::new);

    Context(NativeMpi mpi, boolean pinArrays, int tagUpperBound) {
        this.mpi = mpi;
        for (Datatype t : Datatype.values()) {
            types[t.ordinal()] = mpi.datatype(t);
        }
        for (Op o : Op.values()) {
            ops[o.ordinal()] = mpi.op(o);
        }
        this.byteType = types[Datatype.BYTE.ordinal()];
        this.anySource = mpi.anySource();
        this.procNull = mpi.procNull();
        this.tagUpperBound = tagUpperBound;
        this.requestNull = mpi.requestNull();
        this.undefined = mpi.undefined();
        this.pinArrays = pinArrays && mpi.heapAccess();
        this.staging = ThreadLocal.withInitial(() -> new Staging(mpi));
    }

    /** This thread's arrays for completing many requests at once. */
    Request.Scratch requestScratch() {
        return requestScratch.get();
    }
}
