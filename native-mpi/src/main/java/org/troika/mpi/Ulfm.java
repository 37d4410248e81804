package org.troika.mpi;

import java.lang.reflect.InvocationTargetException;
import java.util.Objects;
import org.troika.mpi.jna.JnaUlfm;
import org.troika.mpi.spi.NativeMpi;
import org.troika.mpi.spi.NativeUlfm;

/**
 * MPI's fault-tolerance extension (User-Level Failure Mitigation, the {@code MPIX_Comm_*} calls): the survivors of a
 * dead rank go on in the same processes instead of the job being torn down.
 *
 * <pre>{@code
 * try {
 *     comm.allreduce(grads, Op.SUM);
 * } catch (ProcFailedException | RevokedException e) {
 *     Ulfm ulfm = Ulfm.get();
 *     ulfm.revoke(comm);                      // every survivor's pending and later calls on comm fail
 *     Communicator survivors = ulfm.shrink(comm);
 *     comm.close();
 *     comm = survivors;                      // go on with the live ranks
 * }
 * }</pre>
 *
 * <p>It works only when the library exports the symbols (detected at run time, JNA and FFM backends alike) and the
 * job runs with fault tolerance on: Open MPI 5 under {@code mpirun --with-ft ulfm} ({@code troika run
 * --fault-tolerance shrink}). Without {@code --with-ft}, Open MPI 5 ends the whole job when a rank dies. Open MPI 4
 * as packaged lacks the symbols; MPICH exports them but its default device does not recover.
 */
public final class Ulfm {
    private static final String FFM_CLASS = "org.troika.mpi.ffm.FfmUlfm";
    private static final Object LOCK = new Object();
    private static NativeUlfm bound; // guarded by LOCK
    private static NativeMpi boundFor; // guarded by LOCK

    private final NativeUlfm ulfm;

    private Ulfm(NativeUlfm ulfm) {
        this.ulfm = ulfm;
    }

    /** Whether the running MPI library exports the ULFM calls. */
    public static boolean available() {
        try {
            get();
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * The ULFM calls of the running MPI library.
     *
     * @throws IllegalStateException when MPI is not initialised
     * @throws UnsupportedOperationException when the library lacks them (the message names it and the fix)
     */
    public static Ulfm get() {
        NativeMpi backend = Mpi.current().backend();
        synchronized (LOCK) {
            if (boundFor != backend) {
                bound = bind(backend);
                boundFor = backend;
            }
            return new Ulfm(bound);
        }
    }

    /** Binds the ULFM symbols of {@code backend}'s library with the same foreign-function backend it uses. */
    static NativeUlfm bind(NativeMpi backend) {
        try {
            if (backend.getClass().getName().equals("org.troika.mpi.ffm.FfmMpi")) {
                try {
                    return (NativeUlfm) Class.forName(FFM_CLASS).getMethod("bind", NativeMpi.class).invoke(null, backend);
                } catch (InvocationTargetException e) {
                    if (e.getCause() instanceof UnsatisfiedLinkError u) {
                        throw u;
                    }
                    throw new IllegalStateException("FFM ULFM binding failed: " + e.getCause(), e.getCause());
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("FFM ULFM binding is broken: " + e, e);
                }
            }
            return JnaUlfm.bind(backend);
        } catch (UnsatisfiedLinkError e) {
            throw new UnsupportedOperationException("the MPI library " + backend.libraryName() + " lacks the fault "
                    + "tolerance extension (ULFM: " + e.getMessage() + "): use Open MPI 5 or later and run with "
                    + "troika run --fault-tolerance shrink (mpirun --with-ft ulfm)", e);
        }
    }

    /** {@code MPIX_Comm_revoke}: every rank's pending and later operations on {@code comm} fail with MPI_ERR_REVOKED. */
    public void revoke(Communicator comm) {
        ulfm.revoke(Objects.requireNonNull(comm, "comm").handle());
    }

    /**
     * {@code MPIX_Comm_shrink}: a new communicator of the live ranks of {@code comm} (collective over them), with
     * errors returned. Close it when done; {@code comm} stays open until closed.
     */
    public Communicator shrink(Communicator comm) {
        return comm.derived(ulfm.shrink(Objects.requireNonNull(comm, "comm").handle()));
    }

    /** {@code MPIX_Comm_agree}: whether {@code flag} holds on every live rank (collective, works on a revoked comm). */
    public boolean agree(Communicator comm, boolean flag) {
        return ulfm.agree(Objects.requireNonNull(comm, "comm").handle(), flag ? 1 : 0) != 0;
    }

    /**
     * {@code MPIX_Comm_failure_ack} then {@code MPIX_Comm_failure_get_acked}: acknowledges the failures this rank
     * knows of (so wildcard receives and {@link #agree} go on) and returns how many ranks of {@code comm} failed.
     */
    public int acknowledgeFailures(Communicator comm) {
        long h = Objects.requireNonNull(comm, "comm").handle();
        ulfm.failureAck(h);
        return ulfm.failedAcked(h);
    }
}
