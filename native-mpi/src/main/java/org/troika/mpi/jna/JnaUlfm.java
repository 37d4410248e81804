package org.troika.mpi.jna;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import java.util.Map;
import org.troika.mpi.MpiErrors;
import org.troika.mpi.spi.NativeMpi;
import org.troika.mpi.spi.NativeUlfm;

/**
 * {@link NativeUlfm} through JNA function lookup (these calls are rare: recovery, not the hot path). Open MPI passes
 * handles as pointers, MPICH as {@code int}s.
 */
public final class JnaUlfm implements NativeUlfm {
    private final NativeMpi mpi;
    private final boolean openMpi;
    private final Function revoke;
    private final Function shrink;
    private final Function agree;
    private final Function ack;
    private final Function getAcked;
    private final Function groupSize;
    private final Function groupFree;
    private final Function errorClass;

    private JnaUlfm(NativeMpi mpi, NativeLibrary lib) {
        this.mpi = mpi;
        this.openMpi = "open-mpi".equals(mpi.abi());
        revoke = lib.getFunction("MPIX_Comm_revoke");
        shrink = lib.getFunction("MPIX_Comm_shrink");
        agree = lib.getFunction("MPIX_Comm_agree");
        ack = lib.getFunction("MPIX_Comm_failure_ack");
        getAcked = lib.getFunction("MPIX_Comm_failure_get_acked");
        groupSize = lib.getFunction("MPI_Group_size");
        groupFree = lib.getFunction("MPI_Group_free");
        errorClass = lib.getFunction("MPI_Error_class");
    }

    /**
     * Looks the ULFM symbols up in the library {@code mpi} loaded.
     *
     * @throws UnsatisfiedLinkError when the library lacks one of them
     */
    public static NativeUlfm bind(NativeMpi mpi) {
        NativeLibrary lib = NativeLibrary.getInstance(mpi.libraryName(),
                Map.of(Library.OPTION_OPEN_FLAGS, JnaMpi.OPEN_FLAGS));
        return new JnaUlfm(mpi, lib);
    }

    private Object handle(long h) {
        return openMpi ? (Object) h : (Object) (int) h;
    }

    private long readHandle(Memory out) {
        return openMpi ? out.getLong(0) : out.getInt(0);
    }

    private void check(int rc, String function) {
        if (rc != 0) {
            try (Memory out = new Memory(4)) {
                int cls = errorClass.invokeInt(new Object[] {rc, out}) == 0 ? out.getInt(0) : -1;
                throw MpiErrors.exception(openMpi, function, rc, cls, mpi.errorString(rc));
            }
        }
    }

    @Override
    public void revoke(long comm) {
        check(revoke.invokeInt(new Object[] {handle(comm)}), "MPIX_Comm_revoke");
    }

    @Override
    public long shrink(long comm) {
        try (Memory out = new Memory(8)) {
            out.clear();
            check(shrink.invokeInt(new Object[] {handle(comm), out}), "MPIX_Comm_shrink");
            return readHandle(out);
        }
    }

    @Override
    public int agree(long comm, int flag) {
        try (Memory out = new Memory(4)) {
            out.setInt(0, flag);
            check(agree.invokeInt(new Object[] {handle(comm), out}), "MPIX_Comm_agree");
            return out.getInt(0);
        }
    }

    @Override
    public void failureAck(long comm) {
        check(ack.invokeInt(new Object[] {handle(comm)}), "MPIX_Comm_failure_ack");
    }

    @Override
    public int failedAcked(long comm) {
        try (Memory group = new Memory(8); Memory size = new Memory(4)) {
            group.clear();
            check(getAcked.invokeInt(new Object[] {handle(comm), group}), "MPIX_Comm_failure_get_acked");
            check(groupSize.invokeInt(new Object[] {handle(readHandle(group)), size}), "MPI_Group_size");
            check(groupFree.invokeInt(new Object[] {group}), "MPI_Group_free");
            return size.getInt(0);
        }
    }
}
