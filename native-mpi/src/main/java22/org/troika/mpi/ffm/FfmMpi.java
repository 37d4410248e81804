package org.troika.mpi.ffm;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.troika.mpi.Datatype;
import org.troika.mpi.MpiErrors;
import org.troika.mpi.Op;
import org.troika.mpi.spi.MpiAbi;
import org.troika.mpi.spi.NativeMpi;

/**
 * {@link NativeMpi} over the Foreign Function &amp; Memory API (JDK 22+): a downcall costs a few nanoseconds where
 * JNA direct mapping costs ~0.25 µs. Shipped in the multi-release jar ({@code META-INF/versions/22}) and chosen by
 * {@code Mpi.init()} on JDK 22+ when native access is enabled ({@code --enable-native-access=ALL-UNNAMED}), or when
 * {@code TROIKA_MPI_BACKEND=ffm}.
 *
 * <p>Handles and buffer addresses are passed as {@code long}s: pointer-sized integers go in the same registers as
 * pointers on LP64 ABIs. MPICH's {@code int} handles are narrowed by an argument filter, so every call site has one
 * exact type for both ABIs.
 */
public final class FfmMpi implements NativeMpi {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final int RTLD_NOW_GLOBAL = 0x2 | 0x100;
    private static final MethodHandle LONG_TO_INT = MethodHandles.explicitCastArguments(
            MethodHandles.identity(int.class), MethodType.methodType(int.class, long.class));

    private final String name;
    private final boolean openMpi;
    private final SymbolLookup lookup;
    private final long commWorld;
    private final long commNull;
    private final long infoNull;
    private final long errorsReturn;
    private final long[] datatypes = new long[Datatype.values().length];
    private final long[] ops = new long[Op.values().length];

    private final MethodHandle initializedMh;
    private final MethodHandle finalizedMh;
    private final MethodHandle initThreadMh;
    private final MethodHandle finalizeMh;
    private final MethodHandle commRankMh;
    private final MethodHandle commSizeMh;
    private final MethodHandle commSplitMh;
    private final MethodHandle commSplitTypeMh;
    private final MethodHandle commFreeMh;
    private final MethodHandle setErrhandlerMh;
    private final MethodHandle barrierMh;
    private final MethodHandle allreduceMh;
    private final MethodHandle bcastMh;
    private final MethodHandle allgatherMh;
    private final MethodHandle allgathervMh;
    private final MethodHandle alltoallMh;
    private final MethodHandle reduceScatterBlockMh;
    private final MethodHandle wtimeMh;
    private final MethodHandle abortMh;
    private final MethodHandle errorStringMh;
    private final MethodHandle errorClassMh;
    private final MethodHandle libraryVersionMh;

    private FfmMpi(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
        this.openMpi = lookup.find(MpiAbi.OPEN_MPI_MARKER).isPresent();
        if (openMpi) {
            commWorld = global(MpiAbi.OpenMpi.COMM_WORLD);
            commNull = global(MpiAbi.OpenMpi.COMM_NULL);
            infoNull = global(MpiAbi.OpenMpi.INFO_NULL);
            errorsReturn = global(MpiAbi.OpenMpi.ERRORS_RETURN);
            for (Datatype t : Datatype.values()) {
                datatypes[t.ordinal()] = global(MpiAbi.OpenMpi.datatypeSymbol(t));
            }
            for (Op o : Op.values()) {
                ops[o.ordinal()] = global(MpiAbi.OpenMpi.opSymbol(o));
            }
        } else {
            commWorld = MpiAbi.Mpich.COMM_WORLD;
            commNull = MpiAbi.Mpich.COMM_NULL;
            infoNull = MpiAbi.Mpich.INFO_NULL;
            errorsReturn = MpiAbi.Mpich.ERRORS_RETURN;
            for (Datatype t : Datatype.values()) {
                datatypes[t.ordinal()] = MpiAbi.Mpich.datatype(t);
            }
            for (Op o : Op.values()) {
                ops[o.ordinal()] = MpiAbi.Mpich.op(o);
            }
        }
        // signature letters: a = address (long), i = int, h = handle (long; int for MPICH)
        initializedMh = down("MPI_Initialized", "a");
        finalizedMh = down("MPI_Finalized", "a");
        initThreadMh = down("MPI_Init_thread", "aaia");
        finalizeMh = down("MPI_Finalize", "");
        commRankMh = down("MPI_Comm_rank", "ha");
        commSizeMh = down("MPI_Comm_size", "ha");
        commSplitMh = down("MPI_Comm_split", "hiia");
        commSplitTypeMh = down("MPI_Comm_split_type", "hiiha");
        commFreeMh = down("MPI_Comm_free", "a");
        setErrhandlerMh = down("MPI_Comm_set_errhandler", "hh");
        barrierMh = down("MPI_Barrier", "h");
        allreduceMh = down("MPI_Allreduce", "aaihhh");
        bcastMh = down("MPI_Bcast", "aihih");
        allgatherMh = down("MPI_Allgather", "aihaihh");
        allgathervMh = down("MPI_Allgatherv", "aihaaahh");
        alltoallMh = down("MPI_Alltoall", "aihaihh");
        reduceScatterBlockMh = down("MPI_Reduce_scatter_block", "aaihhh");
        wtimeMh = LINKER.downcallHandle(symbol("MPI_Wtime"), FunctionDescriptor.of(JAVA_DOUBLE));
        abortMh = down("MPI_Abort", "hi");
        errorStringMh = down("MPI_Error_string", "iaa");
        errorClassMh = down("MPI_Error_class", "ia");
        libraryVersionMh = down("MPI_Get_library_version", "aa");
    }

    /**
     * Opens an MPI library with {@code RTLD_NOW | RTLD_GLOBAL} (after setting {@code UCX_ERROR_SIGNALS} as the JNA
     * backend does, for the same reason) and binds it.
     *
     * @throws UnsatisfiedLinkError when the library cannot be opened
     */
    public static NativeMpi load(String library) {
        SymbolLookup libc = LINKER.defaultLookup();
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle setenv = LINKER.downcallHandle(libc.find("setenv").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
            MethodHandle dlopen = LINKER.downcallHandle(libc.find("dlopen").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT));
            int unused = (int) setenv.invokeExact(arena.allocateFrom("UCX_ERROR_SIGNALS").address(),
                    arena.allocateFrom("").address(), 0);
            long handle = (long) dlopen.invokeExact(arena.allocateFrom(library).address(), RTLD_NOW_GLOBAL);
            if (handle == 0) {
                throw new UnsatisfiedLinkError("cannot open " + library);
            }
        } catch (UnsatisfiedLinkError e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("FFM setup failed", t);
        }
        return new FfmMpi(library, SymbolLookup.libraryLookup(library, Arena.global()));
    }

    private MemorySegment symbol(String function) {
        return lookup.find(function).orElseThrow(() -> new UnsatisfiedLinkError(function + " not found in " + name));
    }

    private long global(String symbol) {
        return symbol(symbol).address();
    }

    private MethodHandle down(String function, String signature) {
        MemoryLayout[] args = new MemoryLayout[signature.length()];
        for (int i = 0; i < args.length; i++) {
            char c = signature.charAt(i);
            args[i] = c == 'i' || (c == 'h' && !openMpi) ? JAVA_INT : JAVA_LONG;
        }
        MethodHandle mh = LINKER.downcallHandle(symbol(function), FunctionDescriptor.of(JAVA_INT, args));
        for (int i = 0; i < args.length; i++) {
            if (signature.charAt(i) == 'h' && !openMpi) {
                mh = MethodHandles.filterArguments(mh, i, LONG_TO_INT);
            }
        }
        return mh;
    }

    private void check(int rc, String function) {
        if (rc != 0) {
            int cls;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(JAVA_INT);
                cls = (int) errorClassMh.invokeExact(rc, out.address()) == 0 ? out.get(JAVA_INT, 0) : -1;
            } catch (Throwable t) {
                cls = -1;
            }
            throw MpiErrors.exception(openMpi, function, rc, cls, errorString(rc));
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    @Override
    public String libraryName() {
        return name;
    }

    @Override
    public String abi() {
        return openMpi ? "open-mpi" : "mpich";
    }

    @Override
    public boolean initialized() {
        return flag(initializedMh, "MPI_Initialized");
    }

    @Override
    public boolean finalized() {
        return flag(finalizedMh, "MPI_Finalized");
    }

    private boolean flag(MethodHandle mh, String function) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) mh.invokeExact(out.address()), function);
            return out.get(JAVA_INT, 0) != 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int initThread(int required) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) initThreadMh.invokeExact(0L, 0L, required, out.address()), "MPI_Init_thread");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void finalizeMpi() {
        try {
            check((int) finalizeMh.invokeExact(), "MPI_Finalize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long commWorld() {
        return commWorld;
    }

    @Override
    public long commNull() {
        return commNull;
    }

    @Override
    public long inPlace() {
        return openMpi ? MpiAbi.OpenMpi.IN_PLACE : MpiAbi.Mpich.IN_PLACE;
    }

    @Override
    public long datatype(Datatype type) {
        return datatypes[type.ordinal()];
    }

    @Override
    public long op(Op op) {
        return ops[op.ordinal()];
    }

    @Override
    public int undefined() {
        return MpiAbi.UNDEFINED;
    }

    @Override
    public int commRank(long comm) {
        return intOut(commRankMh, comm, "MPI_Comm_rank");
    }

    @Override
    public int commSize(long comm) {
        return intOut(commSizeMh, comm, "MPI_Comm_size");
    }

    private int intOut(MethodHandle mh, long comm, String function) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check((int) mh.invokeExact(comm, out.address()), function);
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private long handleAt(MemorySegment out) {
        return openMpi ? out.get(JAVA_LONG, 0) : out.get(JAVA_INT, 0);
    }

    @Override
    public long commSplit(long comm, int color, int key) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) commSplitMh.invokeExact(comm, color, key, out.address()), "MPI_Comm_split");
            return handleAt(out);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long commSplitShared(long comm, int key) {
        int type = openMpi ? MpiAbi.OpenMpi.COMM_TYPE_SHARED : MpiAbi.Mpich.COMM_TYPE_SHARED;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check((int) commSplitTypeMh.invokeExact(comm, type, key, infoNull, out.address()), "MPI_Comm_split_type");
            return handleAt(out);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void commFree(long comm) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment handle = arena.allocate(JAVA_LONG);
            if (openMpi) {
                handle.set(JAVA_LONG, 0, comm);
            } else {
                handle.set(JAVA_INT, 0, (int) comm);
            }
            check((int) commFreeMh.invokeExact(handle.address()), "MPI_Comm_free");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void setErrorsReturn(long comm) {
        try {
            check((int) setErrhandlerMh.invokeExact(comm, errorsReturn), "MPI_Comm_set_errhandler");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void barrier(long comm) {
        try {
            check((int) barrierMh.invokeExact(comm), "MPI_Barrier");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void allreduce(long send, long recv, int count, long type, long op, long comm) {
        int rc;
        try {
            rc = (int) allreduceMh.invokeExact(send, recv, count, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Allreduce");
    }

    @Override
    public void bcast(long buf, int count, long type, int root, long comm) {
        int rc;
        try {
            rc = (int) bcastMh.invokeExact(buf, count, type, root, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Bcast");
    }

    @Override
    public void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        int rc;
        try {
            rc = (int) allgatherMh.invokeExact(send, sendCount, type, recv, recvCount, type, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Allgather");
    }

    @Override
    public void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm) {
        int rc;
        try {
            rc = (int) allgathervMh.invokeExact(send, sendCount, type, recv, recvCounts, displs, type, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Allgatherv");
    }

    @Override
    public void alltoall(long send, int count, long recv, long type, long comm) {
        int rc;
        try {
            rc = (int) alltoallMh.invokeExact(send, count, type, recv, count, type, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Alltoall");
    }

    @Override
    public void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm) {
        int rc;
        try {
            rc = (int) reduceScatterBlockMh.invokeExact(send, recv, recvCount, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Reduce_scatter_block");
    }

    @Override
    public double wtime() {
        try {
            return (double) wtimeMh.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String libraryVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(8192);
            MemorySegment len = arena.allocate(JAVA_INT);
            check((int) libraryVersionMh.invokeExact(text.address(), len.address()), "MPI_Get_library_version");
            return text.getString(0).strip();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String errorString(int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(1024);
            MemorySegment len = arena.allocate(JAVA_INT);
            int rc = (int) errorStringMh.invokeExact(code, text.address(), len.address());
            return rc == 0 ? text.getString(0) : "unknown MPI error " + code;
        } catch (Throwable t) {
            return "unknown MPI error " + code;
        }
    }

    @Override
    public void abort(long comm, int code) {
        try {
            check((int) abortMh.invokeExact(comm, code), "MPI_Abort");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
