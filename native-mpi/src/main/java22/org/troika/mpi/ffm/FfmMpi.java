package org.troika.mpi.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
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
import java.nio.Buffer;
import org.troika.mpi.Datatype;
import org.troika.mpi.MpiErrors;
import org.troika.mpi.MpiLibrary;
import org.troika.mpi.Op;
import org.troika.mpi.spi.MpiAbi;
import org.troika.mpi.spi.NativeFunction;
import org.troika.mpi.spi.NativeMpi;
import org.troika.mpi.spi.Upcall;

/**
 * {@link NativeMpi} over the Foreign Function &amp; Memory API (JDK 22+). Shipped in the multi-release jar
 * ({@code META-INF/versions/22}) and chosen by {@code Mpi.init()} on JDK 22+ when native access is enabled
 * ({@code --enable-native-access=ALL-UNNAMED}), or when {@code TROIKA_MPI_BACKEND=ffm}.
 *
 * <p>The call path: every downcall handle is a {@code static final} field of {@link Fn}, so the JIT treats it as a
 * constant and inlines the downcall stub; nothing is allocated per call (out-parameters use a per-thread native
 * scratch area). Handles and buffer addresses are passed as {@code long}s (pointer-sized integers go in the same
 * registers as pointers on LP64 ABIs); MPICH's {@code int} handles are narrowed by an argument filter, so every call
 * site has one exact type for both ABIs. The {@code ...Heap} methods pass Java arrays as heap segments through
 * {@code Linker.Option.critical(true)} downcalls: no copy, and the array cannot move because no GC can start while
 * the thread is inside the call (the price: other threads that need a GC wait until the call returns).
 *
 * <p>A process binds one MPI library: {@link #load} stores it for {@link Fn}'s class initialiser.
 */
public final class FfmMpi implements NativeMpi {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final int RTLD_NOW_GLOBAL = 0x2 | 0x100;
    private static final MethodHandle LONG_TO_INT = MethodHandles.explicitCastArguments(
            MethodHandles.identity(int.class), MethodType.methodType(int.class, long.class));

    // the library Fn binds; written once by load() before Fn is first used (class initialisation publishes them)
    private static String boundName;
    private static SymbolLookup boundLookup;
    private static boolean boundOpenMpi;

    /** Per-thread native out-parameters: [0, 32) an MPI_Status, [32, 40) a handle, [40, 48) ints. */
    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(64, 16));
    private static final long HANDLE_AT = 32;
    private static final long INT_AT = 40;
    /** Per-thread native room for the request arrays of waitAll and friends (grown on demand), see {@link #batch}. */
    private static final ThreadLocal<MemorySegment[]> BATCH =
            ThreadLocal.withInitial(() -> new MemorySegment[] {MemorySegment.NULL});

    private final long[] datatypes = new long[Datatype.values().length];
    private final long[] ops = new long[Op.values().length];

    /**
     * Every kind of heap segment {@link #heap} makes, made once here. The JDK has a class per array type
     * (HeapMemorySegmentImpl.OfByte, OfDouble, ...), loaded at its first segment; while only one is loaded, C2
     * compiles the callers of {@link #heap} on the assumption that it is the only one, and the first array of another
     * type discards all that code. Measured with OMB-J's OSUBcast on the drop-in: the first reduce of doubles (its
     * statistics, after the first size) threw away the compiled bcast, which then ran in C1's code for the next
     * ~200 ms (rows 16 B to 2 KiB 1.6-3x slower than with 100,000 iterations a size). The buffer classes of the
     * same kind of trap, common to both backends, are loaded by {@link org.troika.mpi.spi.BufferAddresses}.
     */
    static {
        Object[] kinds = {MemorySegment.ofArray(new byte[0]), MemorySegment.ofArray(new int[0]),
            MemorySegment.ofArray(new long[0]), MemorySegment.ofArray(new float[0]),
            MemorySegment.ofArray(new double[0])};
    }

    private FfmMpi() {
        for (Datatype t : Datatype.values()) {
            datatypes[t.ordinal()] = Fn.OPEN_MPI ? global(MpiAbi.OpenMpi.datatypeSymbol(t)) : MpiAbi.Mpich.datatype(t);
        }
        for (Op o : Op.values()) {
            ops[o.ordinal()] = Fn.OPEN_MPI ? global(MpiAbi.OpenMpi.opSymbol(o)) : MpiAbi.Mpich.op(o);
        }
    }

    /**
     * Opens an MPI library with {@code RTLD_NOW | RTLD_GLOBAL} (after setting {@code UCX_ERROR_SIGNALS} as the JNA
     * backend does, for the same reason, and refusing as it does when UCX is loaded already) and binds it. A process binds one library.
     *
     * @throws UnsatisfiedLinkError when the library cannot be opened
     */
    public static synchronized NativeMpi load(String library) {
        if (boundName != null) {
            if (!boundName.equals(library)) {
                throw new IllegalStateException("the FFM backend is bound to " + boundName + " already; a process "
                        + "binds one MPI library, not also " + library);
            }
            return new FfmMpi();
        }
        SymbolLookup libc = LINKER.defaultLookup();
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle setenv = LINKER.downcallHandle(libc.find("setenv").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
            MethodHandle dlopen = LINKER.downcallHandle(libc.find("dlopen").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT));
            MethodHandle getenv = LINKER.downcallHandle(libc.find("getenv").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
            MethodHandle dlclose = LINKER.downcallHandle(libc.find("dlclose").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            long variable = arena.allocateFrom(MpiLibrary.UCX_ERROR_SIGNALS).address();
            if ((long) getenv.invokeExact(variable) == 0) {
                long ucx = (long) dlopen.invokeExact(arena.allocateFrom(MpiLibrary.UCX).address(),
                        MpiLibrary.RTLD_LAZY_NOLOAD);
                if (ucx != 0) {
                    int closed = (int) dlclose.invokeExact(ucx);
                    throw MpiLibrary.ucxLoadedFirst();
                }
            }
            int unused = (int) setenv.invokeExact(variable, arena.allocateFrom("").address(), 0);
            long handle = (long) dlopen.invokeExact(arena.allocateFrom(library).address(), RTLD_NOW_GLOBAL);
            if (handle == 0) {
                throw new UnsatisfiedLinkError("cannot open " + library);
            }
        } catch (UnsatisfiedLinkError | IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("FFM setup failed", t);
        }
        SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
        boundLookup = lookup;
        boundOpenMpi = lookup.find(MpiAbi.OPEN_MPI_MARKER).isPresent();
        boundName = library;
        return new FfmMpi();
    }

    private static MemorySegment symbol(String function) {
        return boundLookup.find(function)
                .orElseThrow(() -> new UnsatisfiedLinkError(function + " not found in " + boundName));
    }

    private static long global(String symbol) {
        return symbol(symbol).address();
    }

    /**
     * A downcall handle returning {@code int}. Signature letters: {@code a} an address as {@code long}, {@code A} an
     * address as a {@code MemorySegment} (heap arrays; makes the call critical with heap access), {@code i} an
     * {@code int}, {@code h} a handle ({@code long}; narrowed to {@code int} for MPICH).
     */
    private static MethodHandle down(String function, String signature) {
        MemoryLayout[] args = new MemoryLayout[signature.length()];
        boolean heap = false;
        for (int i = 0; i < args.length; i++) {
            char c = signature.charAt(i);
            heap |= c == 'A';
            args[i] = c == 'A' ? ADDRESS : c == 'i' || (c == 'h' && !boundOpenMpi) ? JAVA_INT : JAVA_LONG;
        }
        FunctionDescriptor fd = FunctionDescriptor.of(JAVA_INT, args);
        MethodHandle mh = heap ? LINKER.downcallHandle(symbol(function), fd, Linker.Option.critical(true))
                : LINKER.downcallHandle(symbol(function), fd);
        for (int i = 0; i < args.length; i++) {
            if (signature.charAt(i) == 'h' && !boundOpenMpi) {
                mh = MethodHandles.filterArguments(mh, i, LONG_TO_INT);
            }
        }
        return mh;
    }

    /** The downcall handles, constants for the JIT once this class is initialised (after {@link #load}). */
    static final class Fn {
        private Fn() {}

        static final boolean OPEN_MPI = boundOpenMpi;
        static final long IN_PLACE = OPEN_MPI ? MpiAbi.OpenMpi.IN_PLACE : MpiAbi.Mpich.IN_PLACE;
        static final MemorySegment IN_PLACE_SEGMENT = MemorySegment.ofAddress(IN_PLACE);
        static final long STATUS_IGNORE = OPEN_MPI ? MpiAbi.OpenMpi.STATUS_IGNORE : MpiAbi.Mpich.STATUS_IGNORE;
        static final long STATUS_SOURCE = OPEN_MPI ? MpiAbi.OpenMpi.STATUS_SOURCE : MpiAbi.Mpich.STATUS_SOURCE;
        static final long STATUS_TAG = OPEN_MPI ? MpiAbi.OpenMpi.STATUS_TAG : MpiAbi.Mpich.STATUS_TAG;
        static final long STATUS_ERROR = OPEN_MPI ? MpiAbi.OpenMpi.STATUS_ERROR : MpiAbi.Mpich.STATUS_ERROR;
        static final long COMM_WORLD = OPEN_MPI ? global(MpiAbi.OpenMpi.COMM_WORLD) : MpiAbi.Mpich.COMM_WORLD;
        static final long COMM_NULL = OPEN_MPI ? global(MpiAbi.OpenMpi.COMM_NULL) : MpiAbi.Mpich.COMM_NULL;
        static final long INFO_NULL = OPEN_MPI ? global(MpiAbi.OpenMpi.INFO_NULL) : MpiAbi.Mpich.INFO_NULL;
        static final long ERRORS_RETURN = OPEN_MPI ? global(MpiAbi.OpenMpi.ERRORS_RETURN)
                : MpiAbi.Mpich.ERRORS_RETURN;
        static final long REQUEST_NULL = OPEN_MPI ? global(MpiAbi.OpenMpi.REQUEST_NULL) : MpiAbi.Mpich.REQUEST_NULL;
        static final long STATUS_SIZE = OPEN_MPI ? MpiAbi.OpenMpi.STATUS_SIZE : MpiAbi.Mpich.STATUS_SIZE;
        static final long REQUEST_SIZE = OPEN_MPI ? MpiAbi.OpenMpi.REQUEST_SIZE : MpiAbi.Mpich.REQUEST_SIZE;
    }

    // One holder class per C function: its downcall handle (a static final constant for the JIT, which inlines the
    // stub) is made when the function is first called. Each new handle shape costs milliseconds of CPU to generate
    // (measured: ~75 handles made at once cost a JDK 25 rank more CPU than all of JNA's start-up), so a rank pays
    // only for the functions it uses. {@code H} is the handle.
    private static final class Initialized { static final MethodHandle H = down("MPI_Initialized", "a"); }
    private static final class Finalized { static final MethodHandle H = down("MPI_Finalized", "a"); }
    private static final class InitThread { static final MethodHandle H = down("MPI_Init_thread", "aaia"); }
    private static final class QueryThread { static final MethodHandle H = down("MPI_Query_thread", "a"); }
    private static final class Finalize { static final MethodHandle H = down("MPI_Finalize", ""); }
    private static final class CommRank { static final MethodHandle H = down("MPI_Comm_rank", "ha"); }
    private static final class CommSize { static final MethodHandle H = down("MPI_Comm_size", "ha"); }
    private static final class CommSplit { static final MethodHandle H = down("MPI_Comm_split", "hiia"); }
    private static final class CommSplitType { static final MethodHandle H = down("MPI_Comm_split_type", "hiiha"); }
    private static final class CommDup { static final MethodHandle H = down("MPI_Comm_dup", "ha"); }
    private static final class CommCreate { static final MethodHandle H = down("MPI_Comm_create", "hha"); }
    private static final class CommCompare { static final MethodHandle H = down("MPI_Comm_compare", "hha"); }
    private static final class CommFree { static final MethodHandle H = down("MPI_Comm_free", "a"); }
    private static final class CommGetAttr { static final MethodHandle H = down("MPI_Comm_get_attr", "hiaa"); }
    private static final class SetErrhandler { static final MethodHandle H = down("MPI_Comm_set_errhandler", "hh"); }
    private static final class CommGroup { static final MethodHandle H = down("MPI_Comm_group", "ha"); }
    private static final class GroupSize { static final MethodHandle H = down("MPI_Group_size", "ha"); }
    private static final class GroupRank { static final MethodHandle H = down("MPI_Group_rank", "ha"); }
    private static final class GroupIncl { static final MethodHandle H = down("MPI_Group_incl", "hiAa"); }
    private static final class GroupExcl { static final MethodHandle H = down("MPI_Group_excl", "hiAa"); }
    private static final class GroupTranslate {
        static final MethodHandle H = down("MPI_Group_translate_ranks", "hiAhA");
    }
    private static final class GroupFree { static final MethodHandle H = down("MPI_Group_free", "a"); }
    private static final class Barrier { static final MethodHandle H = down("MPI_Barrier", "h"); }
    private static final class Allreduce { static final MethodHandle H = down("MPI_Allreduce", "aaihhh"); }
    private static final class Bcast { static final MethodHandle H = down("MPI_Bcast", "aihih"); }
    private static final class Allgather { static final MethodHandle H = down("MPI_Allgather", "aihaihh"); }
    private static final class Allgatherv { static final MethodHandle H = down("MPI_Allgatherv", "aihaaahh"); }
    private static final class Alltoall { static final MethodHandle H = down("MPI_Alltoall", "aihaihh"); }
    private static final class ReduceScatterBlock {
        static final MethodHandle H = down("MPI_Reduce_scatter_block", "aaihhh");
    }
    private static final class Reduce { static final MethodHandle H = down("MPI_Reduce", "aaihhih"); }
    private static final class Gather { static final MethodHandle H = down("MPI_Gather", "aihaihih"); }
    private static final class Gatherv { static final MethodHandle H = down("MPI_Gatherv", "aihaAAhih"); }
    private static final class Scatter { static final MethodHandle H = down("MPI_Scatter", "aihaihih"); }
    private static final class Scatterv { static final MethodHandle H = down("MPI_Scatterv", "aAAhaihih"); }
    private static final class Scan { static final MethodHandle H = down("MPI_Scan", "aaihhh"); }
    private static final class Exscan { static final MethodHandle H = down("MPI_Exscan", "aaihhh"); }
    private static final class Ibarrier { static final MethodHandle H = down("MPI_Ibarrier", "ha"); }
    private static final class Iallreduce { static final MethodHandle H = down("MPI_Iallreduce", "aaihhha"); }
    private static final class Ibcast { static final MethodHandle H = down("MPI_Ibcast", "aihiha"); }
    private static final class Iallgather { static final MethodHandle H = down("MPI_Iallgather", "aihaihha"); }
    private static final class AllreduceHeap { static final MethodHandle H = down("MPI_Allreduce", "AAihhh"); }
    private static final class BcastHeap { static final MethodHandle H = down("MPI_Bcast", "Aihih"); }
    private static final class AllgatherHeap { static final MethodHandle H = down("MPI_Allgather", "AihAihh"); }
    private static final class AlltoallHeap { static final MethodHandle H = down("MPI_Alltoall", "AihAihh"); }
    private static final class ReduceScatterBlockHeap {
        static final MethodHandle H = down("MPI_Reduce_scatter_block", "AAihhh");
    }
    private static final class ReduceHeap { static final MethodHandle H = down("MPI_Reduce", "AAihhih"); }
    private static final class GatherHeap { static final MethodHandle H = down("MPI_Gather", "AihAihih"); }
    private static final class ScatterHeap { static final MethodHandle H = down("MPI_Scatter", "AihAihih"); }
    private static final class ScanHeap { static final MethodHandle H = down("MPI_Scan", "AAihhh"); }
    private static final class ExscanHeap { static final MethodHandle H = down("MPI_Exscan", "AAihhh"); }
    private static final class Send { static final MethodHandle H = down("MPI_Send", "aihiih"); }
    private static final class Recv { static final MethodHandle H = down("MPI_Recv", "aihiiha"); }
    private static final class Sendrecv { static final MethodHandle H = down("MPI_Sendrecv", "aihiiaihiiha"); }
    private static final class Probe { static final MethodHandle H = down("MPI_Probe", "iiha"); }
    private static final class Iprobe { static final MethodHandle H = down("MPI_Iprobe", "iihaa"); }
    private static final class Isend { static final MethodHandle H = down("MPI_Isend", "aihiiha"); }
    private static final class Irecv { static final MethodHandle H = down("MPI_Irecv", "aihiiha"); }
    private static final class Wait { static final MethodHandle H = down("MPI_Wait", "aa"); }
    private static final class TestOne { static final MethodHandle H = down("MPI_Test", "aaa"); }
    private static final class Cancel { static final MethodHandle H = down("MPI_Cancel", "a"); }
    private static final class Waitall { static final MethodHandle H = down("MPI_Waitall", "iaa"); }
    private static final class Testall { static final MethodHandle H = down("MPI_Testall", "iaaa"); }
    private static final class Waitany { static final MethodHandle H = down("MPI_Waitany", "iaaa"); }
    private static final class Testany { static final MethodHandle H = down("MPI_Testany", "iaaaa"); }
    private static final class Waitsome { static final MethodHandle H = down("MPI_Waitsome", "iaaaa"); }
    private static final class Testsome { static final MethodHandle H = down("MPI_Testsome", "iaaaa"); }
    private static final class GetCount { static final MethodHandle H = down("MPI_Get_count", "aha"); }
    private static final class Abort { static final MethodHandle H = down("MPI_Abort", "hi"); }
    private static final class ErrorString { static final MethodHandle H = down("MPI_Error_string", "iaa"); }
    private static final class ErrorClass { static final MethodHandle H = down("MPI_Error_class", "ia"); }
    private static final class LibraryVersion { static final MethodHandle H = down("MPI_Get_library_version", "aa"); }
    private static final class Wtime {
        static final MethodHandle H = LINKER.downcallHandle(symbol("MPI_Wtime"), FunctionDescriptor.of(JAVA_DOUBLE));
    }

    private static void check(int rc, String function) {
        if (rc != 0) {
            throw MpiErrors.exception(Fn.OPEN_MPI, function, rc, errorClassOf(rc), errorStringOf(rc));
        }
    }

    private static int errorClassOf(int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            return (int) ErrorClass.H.invokeExact(code, out.address()) == 0 ? out.get(JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    private static String errorStringOf(int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(1024);
            MemorySegment len = arena.allocate(JAVA_INT);
            int rc = (int) ErrorString.H.invokeExact(code, text.address(), len.address());
            return rc == 0 ? text.getString(0) : "unknown MPI error " + code;
        } catch (Throwable t) {
            return "unknown MPI error " + code;
        }
    }

    /** Downcalls throw only what MPI's stubs cannot: rethrown as they are (errors) or wrapped. */
    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** A Java array as a heap segment; {@code null} is {@code MPI_IN_PLACE} (send side) or NULL (receive side). */
    private static MemorySegment heap(Object array, MemorySegment ifNull) {
        if (array instanceof float[] a) {
            return MemorySegment.ofArray(a);
        } else if (array instanceof double[] a) {
            return MemorySegment.ofArray(a);
        } else if (array instanceof int[] a) {
            return MemorySegment.ofArray(a);
        } else if (array instanceof long[] a) {
            return MemorySegment.ofArray(a);
        } else if (array instanceof byte[] a) {
            return MemorySegment.ofArray(a);
        } else if (array == null) {
            return ifNull;
        }
        throw new IllegalArgumentException("not a primitive array: " + array.getClass());
    }

    private static MemorySegment in(Object array) {
        return heap(array, Fn.IN_PLACE_SEGMENT);
    }

    private static MemorySegment out(Object array) {
        return heap(array, MemorySegment.NULL);
    }

    private static MemorySegment scratch() {
        return SCRATCH.get();
    }

    private static long readHandle(MemorySegment s) {
        return Fn.OPEN_MPI ? s.get(JAVA_LONG, HANDLE_AT) : s.get(JAVA_INT, HANDLE_AT);
    }

    private static void writeHandle(MemorySegment s, long handle) {
        if (Fn.OPEN_MPI) {
            s.set(JAVA_LONG, HANDLE_AT, handle);
        } else {
            s.set(JAVA_INT, HANDLE_AT, (int) handle);
        }
    }

    /** Copies a native MPI_Status (at scratch offset 0) into {@code status}, with the count in {@code type} units. */
    private static void readStatus(MemorySegment s, long type, int[] status) throws Throwable {
        readStatus(s, 0, INT_AT, type, status, 0);
    }

    /**
     * Copies the native MPI_Status at byte {@code at} of {@code s} into {@code status} at {@code STATUS_INTS * to}
     * (nothing when it is null), with the count in {@code type} units; {@code countAt}: an int of room in {@code s}.
     */
    private static void readStatus(MemorySegment s, long at, long countAt, long type, int[] status, int to)
            throws Throwable {
        if (status == null) {
            return;
        }
        int i = to * STATUS_INTS;
        status[i] = s.get(JAVA_INT, at + Fn.STATUS_SOURCE);
        status[i + 1] = s.get(JAVA_INT, at + Fn.STATUS_TAG);
        status[i + 2] = s.get(JAVA_INT, at + Fn.STATUS_ERROR);
        check((int) GetCount.H.invokeExact(s.address() + at, type, s.address() + countAt), "MPI_Get_count");
        status[i + 3] = s.get(JAVA_INT, countAt);
    }

    @Override
    public String libraryName() {
        return boundName;
    }

    @Override
    public String abi() {
        return Fn.OPEN_MPI ? "open-mpi" : "mpich";
    }

    @Override
    public boolean initialized() {
        return intOut(Initialized.H, "MPI_Initialized") != 0;
    }

    @Override
    public boolean finalized() {
        return intOut(Finalized.H, "MPI_Finalized") != 0;
    }

    private static int intOut(MethodHandle mh, String function) {
        MemorySegment s = scratch();
        try {
            check((int) mh.invokeExact(s.address() + INT_AT), function);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return s.get(JAVA_INT, INT_AT);
    }

    private static int intOut(MethodHandle mh, long handle, String function) {
        MemorySegment s = scratch();
        try {
            check((int) mh.invokeExact(handle, s.address() + INT_AT), function);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return s.get(JAVA_INT, INT_AT);
    }

    private static long handleOut(MethodHandle mh, long handle, String function) {
        MemorySegment s = scratch();
        try {
            check((int) mh.invokeExact(handle, s.address() + HANDLE_AT), function);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return readHandle(s);
    }

    @Override
    public int initThread(int required) {
        MemorySegment s = scratch();
        try {
            check((int) InitThread.H.invokeExact(0L, 0L, required, s.address() + INT_AT), "MPI_Init_thread");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return s.get(JAVA_INT, INT_AT);
    }

    @Override
    public int queryThread() {
        return intOut(QueryThread.H, "MPI_Query_thread");
    }

    @Override
    public void finalizeMpi() {
        try {
            check((int) Finalize.H.invokeExact(), "MPI_Finalize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long commWorld() {
        return Fn.COMM_WORLD;
    }

    @Override
    public long commNull() {
        return Fn.COMM_NULL;
    }

    @Override
    public long inPlace() {
        return Fn.IN_PLACE;
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
    public int anySource() {
        return Fn.OPEN_MPI ? MpiAbi.OpenMpi.ANY_SOURCE : MpiAbi.Mpich.ANY_SOURCE;
    }

    @Override
    public int procNull() {
        return Fn.OPEN_MPI ? MpiAbi.OpenMpi.PROC_NULL : MpiAbi.Mpich.PROC_NULL;
    }

    @Override
    public int tagUpperBound() {
        MemorySegment s = scratch();
        int key = Fn.OPEN_MPI ? MpiAbi.OpenMpi.TAG_UB_KEY : MpiAbi.Mpich.TAG_UB_KEY;
        try {
            check((int) CommGetAttr.H.invokeExact(Fn.COMM_WORLD, key, s.address() + HANDLE_AT, s.address() + INT_AT),
                    "MPI_Comm_get_attr");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (s.get(JAVA_INT, INT_AT) == 0) {
            return 32767; // the standard's guaranteed minimum
        }
        return MemorySegment.ofAddress(s.get(JAVA_LONG, HANDLE_AT)).reinterpret(4).get(JAVA_INT, 0);
    }

    @Override
    public int commRank(long comm) {
        return intOut(CommRank.H, comm, "MPI_Comm_rank");
    }

    @Override
    public int commSize(long comm) {
        return intOut(CommSize.H, comm, "MPI_Comm_size");
    }

    @Override
    public long commSplit(long comm, int color, int key) {
        MemorySegment s = scratch();
        try {
            check((int) CommSplit.H.invokeExact(comm, color, key, s.address() + HANDLE_AT), "MPI_Comm_split");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return readHandle(s);
    }

    @Override
    public long commSplitShared(long comm, int key) {
        int type = Fn.OPEN_MPI ? MpiAbi.OpenMpi.COMM_TYPE_SHARED : MpiAbi.Mpich.COMM_TYPE_SHARED;
        MemorySegment s = scratch();
        try {
            check((int) CommSplitType.H.invokeExact(comm, type, key, Fn.INFO_NULL, s.address() + HANDLE_AT),
                    "MPI_Comm_split_type");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return readHandle(s);
    }

    @Override
    public long commDup(long comm) {
        return handleOut(CommDup.H, comm, "MPI_Comm_dup");
    }

    @Override
    public int commCompare(long comm1, long comm2) {
        MemorySegment s = scratch();
        try {
            check((int) CommCompare.H.invokeExact(comm1, comm2, s.address() + INT_AT), "MPI_Comm_compare");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return s.get(JAVA_INT, INT_AT);
    }

    @Override
    public long commCreate(long comm, long group) {
        MemorySegment s = scratch();
        try {
            check((int) CommCreate.H.invokeExact(comm, group, s.address() + HANDLE_AT), "MPI_Comm_create");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return readHandle(s);
    }

    @Override
    public void commFree(long comm) {
        freeHandle(CommFree.H, comm, "MPI_Comm_free");
    }

    private static void freeHandle(MethodHandle mh, long handle, String function) {
        MemorySegment s = scratch();
        writeHandle(s, handle);
        try {
            check((int) mh.invokeExact(s.address() + HANDLE_AT), function);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void setErrorsReturn(long comm) {
        try {
            check((int) SetErrhandler.H.invokeExact(comm, Fn.ERRORS_RETURN), "MPI_Comm_set_errhandler");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- groups ----

    @Override
    public long commGroup(long comm) {
        return handleOut(CommGroup.H, comm, "MPI_Comm_group");
    }

    @Override
    public int groupSize(long group) {
        return intOut(GroupSize.H, group, "MPI_Group_size");
    }

    @Override
    public int groupRank(long group) {
        return intOut(GroupRank.H, group, "MPI_Group_rank");
    }

    @Override
    public long groupIncl(long group, int[] ranks) {
        MemorySegment s = scratch();
        try {
            check((int) GroupIncl.H.invokeExact(group, ranks.length, MemorySegment.ofArray(ranks),
                    s.address() + HANDLE_AT), "MPI_Group_incl");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return readHandle(s);
    }

    @Override
    public long groupExcl(long group, int[] ranks) {
        MemorySegment s = scratch();
        try {
            check((int) GroupExcl.H.invokeExact(group, ranks.length, MemorySegment.ofArray(ranks),
                    s.address() + HANDLE_AT), "MPI_Group_excl");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return readHandle(s);
    }

    @Override
    public int[] groupTranslateRanks(long from, int[] ranks, long to) {
        int[] result = new int[ranks.length];
        try {
            check((int) GroupTranslate.H.invokeExact(from, ranks.length, MemorySegment.ofArray(ranks), to,
                    MemorySegment.ofArray(result)), "MPI_Group_translate_ranks");
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return result;
    }

    @Override
    public void groupFree(long group) {
        freeHandle(GroupFree.H, group, "MPI_Group_free");
    }

    // ---- collectives on addresses ----

    @Override
    public void barrier(long comm) {
        int rc;
        try {
            rc = (int) Barrier.H.invokeExact(comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Barrier");
    }

    @Override
    public void allreduce(long send, long recv, int count, long type, long op, long comm) {
        int rc;
        try {
            rc = (int) Allreduce.H.invokeExact(send, recv, count, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Allreduce");
    }

    @Override
    public void bcast(long buf, int count, long type, int root, long comm) {
        int rc;
        try {
            rc = (int) Bcast.H.invokeExact(buf, count, type, root, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Bcast");
    }

    @Override
    public void allgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        int rc;
        try {
            rc = (int) Allgather.H.invokeExact(send, sendCount, type, recv, recvCount, type, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Allgather");
    }

    @Override
    public void allgatherv(long send, int sendCount, long recv, long recvCounts, long displs, long type, long comm) {
        int rc;
        try {
            rc = (int) Allgatherv.H.invokeExact(send, sendCount, type, recv, recvCounts, displs, type, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Allgatherv");
    }

    @Override
    public void alltoall(long send, int count, long recv, long type, long comm) {
        int rc;
        try {
            rc = (int) Alltoall.H.invokeExact(send, count, type, recv, count, type, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Alltoall");
    }

    @Override
    public void reduceScatterBlock(long send, long recv, int recvCount, long type, long op, long comm) {
        int rc;
        try {
            rc = (int) ReduceScatterBlock.H.invokeExact(send, recv, recvCount, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Reduce_scatter_block");
    }

    @Override
    public void reduce(long send, long recv, int count, long type, long op, int root, long comm) {
        int rc;
        try {
            rc = (int) Reduce.H.invokeExact(send, recv, count, type, op, root, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Reduce");
    }

    @Override
    public void gather(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
        int rc;
        try {
            rc = (int) Gather.H.invokeExact(send, sendCount, type, recv, recvCount, type, root, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Gather");
    }

    @Override
    public void gatherv(long send, int sendCount, long recv, int[] recvCounts, int[] displs, long type, int root,
            long comm) {
        int rc;
        try {
            rc = (int) Gatherv.H.invokeExact(send, sendCount, type, recv, out(recvCounts), out(displs), type, root,
                    comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Gatherv");
    }

    @Override
    public void scatter(long send, int sendCount, long recv, int recvCount, long type, int root, long comm) {
        int rc;
        try {
            rc = (int) Scatter.H.invokeExact(send, sendCount, type, recv, recvCount, type, root, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Scatter");
    }

    @Override
    public void scatterv(long send, int[] sendCounts, int[] displs, long recv, int recvCount, long type, int root,
            long comm) {
        int rc;
        try {
            rc = (int) Scatterv.H.invokeExact(send, out(sendCounts), out(displs), type, recv, recvCount, type, root,
                    comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Scatterv");
    }

    @Override
    public void scan(long send, long recv, int count, long type, long op, long comm) {
        int rc;
        try {
            rc = (int) Scan.H.invokeExact(send, recv, count, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Scan");
    }

    @Override
    public void exscan(long send, long recv, int count, long type, long op, long comm) {
        int rc;
        try {
            rc = (int) Exscan.H.invokeExact(send, recv, count, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Exscan");
    }

    // ---- non-blocking collectives ----

    @Override
    public long ibarrier(long comm) {
        return handleOut(Ibarrier.H, comm, "MPI_Ibarrier");
    }

    @Override
    public long iallreduce(long send, long recv, int count, long type, long op, long comm) {
        MemorySegment s = scratch();
        int rc;
        try {
            rc = (int) Iallreduce.H.invokeExact(send, recv, count, type, op, comm, s.address() + HANDLE_AT);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Iallreduce");
        return readHandle(s);
    }

    @Override
    public long ibcast(long buf, int count, long type, int root, long comm) {
        MemorySegment s = scratch();
        int rc;
        try {
            rc = (int) Ibcast.H.invokeExact(buf, count, type, root, comm, s.address() + HANDLE_AT);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Ibcast");
        return readHandle(s);
    }

    @Override
    public long iallgather(long send, int sendCount, long recv, int recvCount, long type, long comm) {
        MemorySegment s = scratch();
        int rc;
        try {
            rc = (int) Iallgather.H.invokeExact(send, sendCount, type, recv, recvCount, type, comm,
                    s.address() + HANDLE_AT);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Iallgather");
        return readHandle(s);
    }

    // ---- collectives on heap arrays (critical downcalls) ----

    @Override
    public boolean heapAccess() {
        return true;
    }

    @Override
    public void allreduceHeap(Object send, Object recv, int count, long type, long op, long comm) {
        int rc;
        try {
            rc = (int) AllreduceHeap.H.invokeExact(in(send), out(recv), count, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Allreduce");
    }

    @Override
    public void bcastHeap(Object buf, int count, long type, int root, long comm) {
        int rc;
        try {
            rc = (int) BcastHeap.H.invokeExact(out(buf), count, type, root, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Bcast");
    }

    @Override
    public void allgatherHeap(Object send, int sendCount, Object recv, int recvCount, long type, long comm) {
        int rc;
        try {
            rc = (int) AllgatherHeap.H.invokeExact(in(send), sendCount, type, out(recv), recvCount, type, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Allgather");
    }

    @Override
    public void alltoallHeap(Object send, int count, Object recv, long type, long comm) {
        int rc;
        try {
            rc = (int) AlltoallHeap.H.invokeExact(in(send), count, type, out(recv), count, type, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Alltoall");
    }

    @Override
    public void reduceScatterBlockHeap(Object send, Object recv, int recvCount, long type, long op, long comm) {
        int rc;
        try {
            rc = (int) ReduceScatterBlockHeap.H.invokeExact(in(send), out(recv), recvCount, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Reduce_scatter_block");
    }

    @Override
    public void reduceHeap(Object send, Object recv, int count, long type, long op, int root, long comm) {
        int rc;
        try {
            rc = (int) ReduceHeap.H.invokeExact(in(send), out(recv), count, type, op, root, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Reduce");
    }

    @Override
    public void gatherHeap(Object send, int sendCount, Object recv, int recvCount, long type, int root, long comm) {
        int rc;
        try {
            rc = (int) GatherHeap.H.invokeExact(in(send), sendCount, type, out(recv), recvCount, type, root, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Gather");
    }

    @Override
    public void scatterHeap(Object send, int sendCount, Object recv, int recvCount, long type, int root, long comm) {
        int rc;
        try {
            rc = (int) ScatterHeap.H.invokeExact(out(send), sendCount, type, in(recv), recvCount, type, root,
                    comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Scatter");
    }

    @Override
    public void scanHeap(Object send, Object recv, int count, long type, long op, boolean exclusive, long comm) {
        int rc;
        try {
            rc = exclusive ? (int) ExscanHeap.H.invokeExact(in(send), out(recv), count, type, op, comm)
                    : (int) ScanHeap.H.invokeExact(in(send), out(recv), count, type, op, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, exclusive ? "MPI_Exscan" : "MPI_Scan");
    }

    // ---- point-to-point ----

    @Override
    public int anyTag() {
        return -1;
    }

    @Override
    public void send(long buf, int count, long type, int dest, int tag, long comm) {
        int rc;
        try {
            rc = (int) Send.H.invokeExact(buf, count, type, dest, tag, comm);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Send");
    }

    @Override
    public void recv(long buf, int count, long type, int source, int tag, long comm, int[] status) {
        try {
            if (status == null) {
                check((int) Recv.H.invokeExact(buf, count, type, source, tag, comm, Fn.STATUS_IGNORE), "MPI_Recv");
            } else {
                MemorySegment s = scratch();
                check((int) Recv.H.invokeExact(buf, count, type, source, tag, comm, s.address()), "MPI_Recv");
                readStatus(s, type, status);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void sendrecv(long send, int sendCount, int dest, int sendTag, long recv, int recvCount, int source,
            int recvTag, long type, long comm, int[] status) {
        try {
            MemorySegment s = status == null ? null : scratch();
            check((int) Sendrecv.H.invokeExact(send, sendCount, type, dest, sendTag, recv, recvCount, type, source,
                    recvTag, comm, s == null ? Fn.STATUS_IGNORE : s.address()), "MPI_Sendrecv");
            if (s != null) {
                readStatus(s, type, status);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void probe(int source, int tag, long comm, long type, int[] status) {
        MemorySegment s = scratch();
        try {
            check((int) Probe.H.invokeExact(source, tag, comm, s.address()), "MPI_Probe");
            readStatus(s, type, status);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public boolean iprobe(int source, int tag, long comm, long type, int[] status) {
        MemorySegment s = scratch();
        try {
            check((int) Iprobe.H.invokeExact(source, tag, comm, s.address() + INT_AT + 4, s.address()), "MPI_Iprobe");
            if (s.get(JAVA_INT, INT_AT + 4) == 0) {
                return false;
            }
            readStatus(s, type, status);
            return true;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long isend(long buf, int count, long type, int dest, int tag, long comm) {
        MemorySegment s = scratch();
        int rc;
        try {
            rc = (int) Isend.H.invokeExact(buf, count, type, dest, tag, comm, s.address() + HANDLE_AT);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Isend");
        return readHandle(s);
    }

    @Override
    public long irecv(long buf, int count, long type, int source, int tag, long comm) {
        MemorySegment s = scratch();
        int rc;
        try {
            rc = (int) Irecv.H.invokeExact(buf, count, type, source, tag, comm, s.address() + HANDLE_AT);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Irecv");
        return readHandle(s);
    }

    @Override
    public void waitRequest(long request, long type, int[] status) {
        MemorySegment s = scratch();
        writeHandle(s, request);
        try {
            check((int) Wait.H.invokeExact(s.address() + HANDLE_AT, status == null ? Fn.STATUS_IGNORE : s.address()),
                    "MPI_Wait");
            if (status != null) {
                readStatus(s, type, status);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public boolean test(long request, long type, int[] status) {
        MemorySegment s = scratch();
        writeHandle(s, request);
        try {
            check((int) TestOne.H.invokeExact(s.address() + HANDLE_AT, s.address() + INT_AT + 4,
                    status == null ? Fn.STATUS_IGNORE : s.address()), "MPI_Test");
            if (s.get(JAVA_INT, INT_AT + 4) == 0) {
                return false;
            }
            if (status != null) {
                readStatus(s, type, status);
            }
            return true;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public void cancel(long request) {
        MemorySegment s = scratch();
        writeHandle(s, request);
        try {
            check((int) Cancel.H.invokeExact(s.address() + HANDLE_AT), "MPI_Cancel");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- many requests: the handles are copied into per-thread native memory (GC-free), one call, copied back ----

    @Override
    public long requestNull() {
        return Fn.REQUEST_NULL;
    }

    /**
     * This thread's native room for {@code count} requests: {@code [requests | statuses | ints]}; offsets from
     * {@link #statusesAt} and {@link #intsAt}. The ints are an out-flag/index/count, then {@code count} indices.
     */
    private static MemorySegment batch(int count) {
        MemorySegment[] holder = BATCH.get();
        long need = intsAt(count) + 4L * (count + 2);
        if (holder[0].byteSize() < need) {
            holder[0] = Arena.ofAuto().allocate(Math.max(need, 2 * holder[0].byteSize()), 16);
        }
        return holder[0];
    }

    private static long statusesAt(int count) {
        return (count * Fn.REQUEST_SIZE + 7) & ~7L;
    }

    private static long intsAt(int count) {
        return statusesAt(count) + count * Fn.STATUS_SIZE;
    }

    private static void putRequests(MemorySegment b, int count, long[] requests) {
        if (Fn.OPEN_MPI) {
            MemorySegment.copy(requests, 0, b, JAVA_LONG, 0, count);
        } else {
            for (int i = 0; i < count; i++) {
                b.set(JAVA_INT, 4L * i, (int) requests[i]);
            }
        }
    }

    private static void getRequests(MemorySegment b, int count, long[] requests) {
        if (Fn.OPEN_MPI) {
            MemorySegment.copy(b, JAVA_LONG, 0, requests, 0, count);
        } else {
            for (int i = 0; i < count; i++) {
                requests[i] = b.get(JAVA_INT, 4L * i);
            }
        }
    }

    @Override
    public void waitAll(int count, long[] requests, long type, int[] statuses) {
        MemorySegment b = batch(count);
        putRequests(b, count, requests);
        long at = statusesAt(count);
        try {
            int rc = (int) Waitall.H.invokeExact(count, b.address(),
                    statuses == null ? Fn.STATUS_IGNORE : b.address() + at);
            getRequests(b, count, requests);
            check(rc, "MPI_Waitall");
            for (int i = 0; statuses != null && i < count; i++) {
                readStatus(b, at + i * Fn.STATUS_SIZE, intsAt(count), type, statuses, i);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public boolean testAll(int count, long[] requests, long type, int[] statuses) {
        MemorySegment b = batch(count);
        putRequests(b, count, requests);
        long at = statusesAt(count);
        long flag = intsAt(count);
        try {
            int rc = (int) Testall.H.invokeExact(count, b.address(), b.address() + flag,
                    statuses == null ? Fn.STATUS_IGNORE : b.address() + at);
            getRequests(b, count, requests);
            check(rc, "MPI_Testall");
            if (b.get(JAVA_INT, flag) == 0) {
                return false;
            }
            for (int i = 0; statuses != null && i < count; i++) {
                readStatus(b, at + i * Fn.STATUS_SIZE, flag + 4, type, statuses, i);
            }
            return true;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int waitAny(int count, long[] requests, long type, int[] status) {
        return any(true, count, requests, type, status);
    }

    @Override
    public int testAny(int count, long[] requests, long type, int[] status) {
        return any(false, count, requests, type, status);
    }

    private static int any(boolean wait, int count, long[] requests, long type, int[] status) {
        MemorySegment b = batch(count);
        putRequests(b, count, requests);
        long at = statusesAt(count);
        long index = intsAt(count);
        long st = status == null ? Fn.STATUS_IGNORE : b.address() + at;
        try {
            int rc = wait ? (int) Waitany.H.invokeExact(count, b.address(), b.address() + index, st)
                    : (int) Testany.H.invokeExact(count, b.address(), b.address() + index, b.address() + index + 4, st);
            getRequests(b, count, requests);
            check(rc, wait ? "MPI_Waitany" : "MPI_Testany");
            if (!wait && b.get(JAVA_INT, index + 4) == 0) {
                return -1;
            }
            int i = b.get(JAVA_INT, index);
            if (i != MpiAbi.UNDEFINED) {
                readStatus(b, at, index + 4, type, status, 0);
            }
            return i;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int waitSome(int count, long[] requests, int[] indices, long type, int[] statuses) {
        return some(true, count, requests, indices, type, statuses);
    }

    @Override
    public int testSome(int count, long[] requests, int[] indices, long type, int[] statuses) {
        return some(false, count, requests, indices, type, statuses);
    }

    private static int some(boolean wait, int count, long[] requests, int[] indices, long type, int[] statuses) {
        MemorySegment b = batch(count);
        putRequests(b, count, requests);
        long at = statusesAt(count);
        long out = intsAt(count);
        long st = statuses == null ? Fn.STATUS_IGNORE : b.address() + at;
        try {
            long a = b.address();
            int rc = wait ? (int) Waitsome.H.invokeExact(count, a, a + out, a + out + 8, st)
                    : (int) Testsome.H.invokeExact(count, a, a + out, a + out + 8, st);
            getRequests(b, count, requests);
            check(rc, wait ? "MPI_Waitsome" : "MPI_Testsome");
            int n = b.get(JAVA_INT, out);
            for (int k = 0; n != MpiAbi.UNDEFINED && k < n; k++) {
                indices[k] = b.get(JAVA_INT, out + 8 + 4L * k);
                readStatus(b, at + k * Fn.STATUS_SIZE, out + 4, type, statuses, k);
            }
            return n;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long address(Buffer direct) {
        return MemorySegment.ofBuffer(direct).address()
                - (long) direct.position() * elementBytes(direct);
    }

    private static int elementBytes(Buffer b) {
        return b instanceof java.nio.ByteBuffer ? 1 : b instanceof java.nio.IntBuffer || b instanceof java.nio.FloatBuffer
                ? 4 : b instanceof java.nio.CharBuffer || b instanceof java.nio.ShortBuffer ? 2 : 8;
    }

    // ---- environment ----

    @Override
    public double wtime() {
        try {
            return (double) Wtime.H.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String libraryVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(8192);
            MemorySegment len = arena.allocate(JAVA_INT);
            check((int) LibraryVersion.H.invokeExact(text.address(), len.address()), "MPI_Get_library_version");
            return text.getString(0).strip();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String errorString(int code) {
        return errorStringOf(code);
    }

    @Override
    public void abort(long comm, int code) {
        try {
            check((int) Abort.H.invokeExact(comm, code), "MPI_Abort");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- everything else, by name ----

    @Override
    public void recvStatus(long buf, int count, long type, int source, int tag, long comm, long status) {
        int rc;
        try {
            rc = (int) Recv.H.invokeExact(buf, count, type, source, tag, comm, status);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(rc, "MPI_Recv");
    }

    /**
     * Binds {@code name} lazily: its symbol is looked up now (a library without it fails here, as callers expect), its
     * downcall handle is made at the first call. A program binds dozens of functions it never calls (the drop-in binds
     * every function of a class at once), and each downcall handle spins method-handle classes that the JIT then
     * compiles while the program's own hot code waits: eager binding cost the drop-in's MPI.Init ~0.5 s and the first
     * sizes of a benchmark their compiled code. The handle the caller holds is a mutable call site's invoker: the JIT
     * inlines its target, first the binder, then (once bound) the downcall, as it inlined the downcall before.
     */
    @Override
    public NativeFunction function(String name, String signature) {
        NativeFunction.Signature sig = NativeFunction.Signature.parse(name, signature);
        MemorySegment symbol = symbol(name);
        MethodType type = MethodType.methodType(sig.returnsDouble() ? double.class : int.class, long[].class);
        java.lang.invoke.MutableCallSite site = new java.lang.invoke.MutableCallSite(type);
        LazyBinding binding = new LazyBinding(site, symbol, sig);
        site.setTarget(MethodHandles.insertArguments(sig.returnsDouble() ? BIND_DOUBLE : BIND_INT, 0, binding));
        return new FfmFunction(site.dynamicInvoker(), sig);
    }

    private static final MethodHandle BIND_INT;
    private static final MethodHandle BIND_DOUBLE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            BIND_INT = lookup.findStatic(FfmMpi.class, "bindAndCall",
                    MethodType.methodType(int.class, LazyBinding.class, long[].class));
            BIND_DOUBLE = lookup.findStatic(FfmMpi.class, "bindAndCallDouble",
                    MethodType.methodType(double.class, LazyBinding.class, long[].class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static int bindAndCall(LazyBinding binding, long[] args) throws Throwable {
        return (int) binding.bind().invokeExact(args);
    }

    private static double bindAndCallDouble(LazyBinding binding, long[] args) throws Throwable {
        return (double) binding.bind().invokeExact(args);
    }

    /** A function's symbol and signature until its first call makes the downcall handle its call site's target. */
    private record LazyBinding(java.lang.invoke.MutableCallSite site, MemorySegment symbol,
            NativeFunction.Signature sig) {
        /** The downcall, as the call site's target from now on (two threads binding at once make equal handles). */
        MethodHandle bind() {
            char[] kinds = sig.kinds();
            MemoryLayout[] args = new MemoryLayout[kinds.length];
            for (int i = 0; i < kinds.length; i++) {
                args[i] = kinds[i] == 'i' || (kinds[i] == 'h' && !boundOpenMpi) ? JAVA_INT : JAVA_LONG;
            }
            FunctionDescriptor fd = sig.returnsDouble() ? FunctionDescriptor.of(JAVA_DOUBLE, args)
                    : FunctionDescriptor.of(JAVA_INT, args);
            MethodHandle mh = LINKER.downcallHandle(symbol, fd);
            for (int i = 0; i < kinds.length; i++) {
                if (args[i] == JAVA_INT) {
                    mh = MethodHandles.filterArguments(mh, i, LONG_TO_INT);
                }
            }
            MethodHandle spread = mh.asSpreader(long[].class, kinds.length);
            site.setTarget(spread);
            return spread;
        }
    }

    /**
     * A function bound by name. A record, so the JIT trusts its final field: held in a {@code static final}, its
     * method handle (a call site's invoker) is a constant and the downcall inlines as the typed ones do.
     */
    private record FfmFunction(MethodHandle spread, NativeFunction.Signature sig) implements NativeFunction {
        @Override
        public int call(long... args) {
            sig.checkArity(args);
            try {
                return (int) spread.invokeExact(args);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        @Override
        public double callDouble(long... args) {
            sig.checkArity(args);
            try {
                return (double) spread.invokeExact(args);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }
    }

    @Override
    public long predefined(String name) {
        return Fn.OPEN_MPI ? MpiAbi.OpenMpi.predefined(name, FfmMpi::global)
                : MpiAbi.Mpich.predefined(name, v -> symbol(v).reinterpret(8).get(JAVA_LONG, 0));
    }

    @Override
    public java.nio.ByteBuffer memory(long address, int bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes).asByteBuffer();
    }

    private static final MethodHandle REDUCE;

    static {
        try {
            REDUCE = MethodHandles.lookup().findStatic(FfmMpi.class, "reduce", MethodType.methodType(void.class,
                    Upcall.Reduction.class, long.class, long.class, long.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The upcall's body: nothing may escape into C (an exception there ends the JVM). */
    private static void reduce(Upcall.Reduction body, long in, long inout, long len, long type) {
        try {
            body.reduce(in, inout, len, type);
        } catch (Throwable t) {
            body.failed(t);
        }
    }

    @Override
    public Upcall reductionFunction(Upcall.Reduction body) {
        Arena arena = Arena.ofShared();
        MemorySegment stub = LINKER.upcallStub(REDUCE.bindTo(body),
                FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), arena);
        return new Upcall() {
            @Override
            public long address() {
                return stub.address();
            }

            @Override
            public void close() {
                arena.close();
            }
        };
    }
}
