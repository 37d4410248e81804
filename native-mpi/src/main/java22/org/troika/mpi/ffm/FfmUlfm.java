package org.troika.mpi.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import org.troika.mpi.MpiErrors;
import org.troika.mpi.spi.NativeMpi;
import org.troika.mpi.spi.NativeUlfm;

/**
 * {@link NativeUlfm} through the Foreign Function &amp; Memory API: the {@code MPIX_Comm_*} symbols are looked up in
 * the library the {@link FfmMpi} backend opened. Handles are {@code long} for Open MPI, {@code int} for MPICH.
 */
public final class FfmUlfm implements NativeUlfm {
    private static final Linker LINKER = Linker.nativeLinker();

    private final NativeMpi mpi;
    private final boolean openMpi;
    private final SymbolLookup lookup;
    private final MethodHandle revokeMh;
    private final MethodHandle shrinkMh;
    private final MethodHandle agreeMh;
    private final MethodHandle ackMh;
    private final MethodHandle getAckedMh;
    private final MethodHandle groupSizeMh;
    private final MethodHandle groupFreeMh;
    private final MethodHandle errorClassMh;

    private FfmUlfm(NativeMpi mpi) {
        this.mpi = mpi;
        this.openMpi = "open-mpi".equals(mpi.abi());
        this.lookup = SymbolLookup.libraryLookup(mpi.libraryName(), Arena.global());
        revokeMh = down("MPIX_Comm_revoke", "h");
        shrinkMh = down("MPIX_Comm_shrink", "ha");
        agreeMh = down("MPIX_Comm_agree", "ha");
        ackMh = down("MPIX_Comm_failure_ack", "h");
        getAckedMh = down("MPIX_Comm_failure_get_acked", "ha");
        groupSizeMh = down("MPI_Group_size", "ha");
        groupFreeMh = down("MPI_Group_free", "a");
        errorClassMh = down("MPI_Error_class", "ia");
    }

    /**
     * Looks the ULFM symbols up in the library {@code mpi} opened.
     *
     * @throws UnsatisfiedLinkError when the library lacks one of them
     */
    public static NativeUlfm bind(NativeMpi mpi) {
        return new FfmUlfm(mpi);
    }

    /** Signature letters as in {@link FfmMpi}: a = address, i = int, h = handle (long; int for MPICH). */
    private MethodHandle down(String function, String signature) {
        MemoryLayout[] args = new MemoryLayout[signature.length()];
        for (int i = 0; i < args.length; i++) {
            char c = signature.charAt(i);
            args[i] = c == 'i' || (c == 'h' && !openMpi) ? JAVA_INT : JAVA_LONG;
        }
        MemorySegment symbol = lookup.find(function)
                .orElseThrow(() -> new UnsatisfiedLinkError(function + " not found in " + mpi.libraryName()));
        return LINKER.downcallHandle(symbol, FunctionDescriptor.of(JAVA_INT, args));
    }

    private int call(MethodHandle mh, Object... args) {
        Object[] converted = args.clone();
        for (int i = 0; i < converted.length; i++) {
            if (converted[i] instanceof Long l && !openMpi && mh.type().parameterType(i) == int.class) {
                converted[i] = (int) (long) l;
            }
        }
        try {
            return (int) mh.invokeWithArguments(converted);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private void check(int rc, String function) {
        if (rc != 0) {
            int cls;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(JAVA_INT);
                cls = call(errorClassMh, rc, out.address()) == 0 ? out.get(JAVA_INT, 0) : -1;
            }
            throw MpiErrors.exception(openMpi, function, rc, cls, mpi.errorString(rc));
        }
    }

    private long readHandle(MemorySegment out) {
        return openMpi ? out.get(JAVA_LONG, 0) : out.get(JAVA_INT, 0);
    }

    @Override
    public void revoke(long comm) {
        check(call(revokeMh, comm), "MPIX_Comm_revoke");
    }

    @Override
    public long shrink(long comm) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check(call(shrinkMh, comm, out.address()), "MPIX_Comm_shrink");
            return readHandle(out);
        }
    }

    @Override
    public int agree(long comm, int flag) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            out.set(JAVA_INT, 0, flag);
            check(call(agreeMh, comm, out.address()), "MPIX_Comm_agree");
            return out.get(JAVA_INT, 0);
        }
    }

    @Override
    public void failureAck(long comm) {
        check(call(ackMh, comm), "MPIX_Comm_failure_ack");
    }

    @Override
    public int failedAcked(long comm) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment group = arena.allocate(JAVA_LONG);
            MemorySegment size = arena.allocate(JAVA_INT);
            check(call(getAckedMh, comm, group.address()), "MPIX_Comm_failure_get_acked");
            check(call(groupSizeMh, readHandle(group), size.address()), "MPI_Group_size");
            check(call(groupFreeMh, group.address()), "MPI_Group_free");
            return size.get(JAVA_INT, 0);
        }
    }
}
