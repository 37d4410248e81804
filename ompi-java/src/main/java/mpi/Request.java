package mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import org.troika.mpi.MpiException;
import org.troika.mpi.spi.MpiAbi;

/**
 * A non-blocking operation. Completing it ({@code waitFor}, {@code test}, {@code waitAll}, ...) sets it to the null
 * request, as MPI does, except persistent requests ({@link Prequest}), which become inactive. The arrays of the
 * {@code wait...}/{@code test...} families go to MPI in one call ({@code MPI_Waitall}, ...), with no object made
 * per request beyond the statuses the {@code ...Status} forms return.
 */
public class Request implements Freeable {
    protected long handle;
    protected Buffer sendBuf;
    protected Buffer recvBuf;

    /**
     * The native copy of a Java array this request works on (non-blocking calls on arrays), or null: one field, so a
     * request on a direct buffer is a 32-byte object, as in Open MPI's binding (a window of requests per iteration
     * touches fresh heap, whose first touch of a page costs ~20 us here: docs/ompi-java.md).
     */
    private Held held;

    /** A Java array's native copy, returned to its pool on completion, and where a receive is copied back. */
    private static final class Held {
        final ArrayCopy block;
        /** Null for sends. */
        final Object array;
        final int from;
        final int length;

        Held(ArrayCopy block, Object array, int from, int length) {
            this.block = block;
            this.array = array;
            this.from = from;
            this.length = length;
        }
    }

    protected Request(long handle) {
        this.handle = handle;
    }

    /** Holds the native copy of an array this request works on; {@code target} receives it back on completion. */
    void holdArray(ArrayCopy copy, Object target, int from, int length) {
        held = new Held(copy, target, from, length);
    }

    boolean isPersistent() {
        return false;
    }

    /** MPI completed the operation: copies a received array back and releases its native copy. */
    private void completed() {
        Held h = held;
        if (h != null) {
            if (h.array != null) {
                h.block.get(h.array, h.from, h.length);
            }
            held = null;
            Blocks.give(h.block);
        }
    }

    private void completedWithHandle(long newHandle) {
        handle = newHandle;
        if (!isPersistent()) {
            completed();
        }
    }

    private static long nullHandle() {
        return MPI.REQUEST_NULL.handle;
    }

    /** {@code MPI_REQUEST_NULL}. */
    protected static long getNull() {
        return Native.predefined("MPI_REQUEST_NULL");
    }

    /** {@code MPI_Request_free}: the operation completes on its own; the request becomes null. */
    public void free() throws MPIException {
        MPI.check();
        if (isNull()) {
            return;
        }
        handle = F.FREE.inOut(handle);
        if (held != null) {
            // MPI may still use the native copy: it is kept alive, never reused
            ORPHANS.add(held.block);
            held = null;
        }
    }

    private static final java.util.List<ArrayCopy> ORPHANS =
            java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    /** {@code MPI_Cancel}; complete the request afterwards ({@code waitFor}). */
    public final void cancel() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = s.handles(new long[] {handle});
        F.CANCEL.call(s.at(at));
    }

    protected final void addRecvBufRef(Buffer buf) {
        recvBuf = buf;
    }

    protected final void addSendBufRef(Buffer buf) {
        sendBuf = buf;
    }

    public final boolean isNull() {
        return handle == nullHandle();
    }

    /** {@code MPI_Wait} returning the status. */
    public final Status waitStatus() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = s.handles(new long[] {handle});
        int st = s.status();
        F.WAIT.call(s.at(at), s.at(st));
        Status status = Status.of(s, st);
        completedWithHandle(s.getHandle(at));
        return status;
    }

    /** {@code MPI_Wait} without a status. */
    public final void waitFor() throws MPIException {
        MPI.check();
        try {
            Native.mpi.waitRequest(handle, 0, null);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        completedWithHandle(isPersistent() ? handle : nullHandle());
    }

    /** {@code MPI_Test}: the status when complete, else null. */
    public final Status testStatus() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = s.handles(new long[] {handle});
        int flag = s.intOut();
        int st = s.status();
        F.TEST.call(s.at(at), s.at(flag), s.at(st));
        if (s.getInt(flag) == 0) {
            return null;
        }
        Status status = Status.of(s, st);
        completedWithHandle(s.getHandle(at));
        return status;
    }

    /** {@code MPI_Request_get_status}: the status when complete (the request stays as it is), else null. */
    public final Status getStatus() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int flag = s.intOut();
        int st = s.status();
        F.GET_STATUS.call(handle, s.at(flag), s.at(st));
        return s.getInt(flag) == 0 ? null : Status.of(s, st);
    }

    /** {@code MPI_Test} without a status. */
    public final boolean test() throws MPIException {
        MPI.check();
        boolean done;
        try {
            done = Native.mpi.test(handle, 0, null);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        if (done) {
            completedWithHandle(isPersistent() ? handle : nullHandle());
        }
        return done;
    }

    /** The requests' handles in scratch memory (null entries as the null request); returns the offset. */
    private static int handles(Scratch s, Request[] requests) {
        if (requests == null) {
            throw new IllegalArgumentException("the request array is null");
        }
        int at = s.alloc((long) Native.handleBytes * requests.length);
        ByteBuffer b = s.buf();
        long nul = nullHandle();
        for (int i = 0; i < requests.length; i++) {
            Native.writeHandle(b, at + Native.handleBytes * i, requests[i] == null ? nul : requests[i].handle);
        }
        return at;
    }

    /** Reads the handles MPI wrote back; completes each request whose operation finished. */
    private static void update(Scratch s, int at, Request[] requests) {
        ByteBuffer b = s.buf();
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (r == null) {
                continue;
            }
            long h = Native.readHandle(b, at + Native.handleBytes * i);
            if (h != r.handle) {
                r.completedWithHandle(h);
            }
        }
    }

    /** Completes the one request MPI reports at {@code index}. */
    private static void updateOne(Scratch s, int at, Request[] requests, int index) {
        Request r = requests[index];
        if (r != null) {
            r.completedWithHandle(Native.readHandle(s.buf(), at + Native.handleBytes * index));
        }
    }

    public static Status waitAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = handles(s, requests);
        int index = s.intOut();
        int st = s.status();
        F.WAITANY.call(requests.length, s.at(at), s.at(index), s.at(st));
        int i = s.getInt(index);
        if (i == MPI.UNDEFINED || i < 0) {
            return Status.of(s, st).withIndex(MPI.UNDEFINED);
        }
        Status status = Status.of(s, st).withIndex(i);
        updateOne(s, at, requests, i);
        return status;
    }

    public static int waitAny(Request[] requests) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = handles(s, requests);
        int index = s.intOut();
        F.WAITANY.call(requests.length, s.at(at), s.at(index), statusIgnore());
        int i = s.getInt(index);
        if (i == MPI.UNDEFINED || i < 0) {
            return MPI.UNDEFINED;
        }
        updateOne(s, at, requests, i);
        return i;
    }

    public static Status testAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = handles(s, requests);
        int index = s.intOut();
        int flag = s.intOut();
        int st = s.status();
        F.TESTANY.call(requests.length, s.at(at), s.at(index), s.at(flag), s.at(st));
        if (s.getInt(flag) == 0) {
            return null;
        }
        int i = s.getInt(index);
        if (i == MPI.UNDEFINED || i < 0) {
            return Status.of(s, st).withIndex(MPI.UNDEFINED);
        }
        Status status = Status.of(s, st).withIndex(i);
        updateOne(s, at, requests, i);
        return status;
    }

    public static int testAny(Request[] requests) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = handles(s, requests);
        int index = s.intOut();
        int flag = s.intOut();
        F.TESTANY.call(requests.length, s.at(at), s.at(index), s.at(flag), statusIgnore());
        int i = s.getInt(index);
        if (s.getInt(flag) == 0 || i == MPI.UNDEFINED || i < 0) {
            return MPI.UNDEFINED;
        }
        updateOne(s, at, requests, i);
        return i;
    }

    public static Status[] waitAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = handles(s, requests);
        int st = statuses(s, requests.length);
        F.WAITALL.call(requests.length, s.at(at), s.at(st));
        Status[] out = new Status[requests.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = Status.of(s, st + Native.statusSize * i);
        }
        update(s, at, requests);
        return out;
    }

    /** The requests' handles in this thread's reusable array (null entries as the null request). */
    private static long[] handleArray(Request[] requests) {
        if (requests == null) {
            throw new IllegalArgumentException("the request array is null");
        }
        long[] h = Scratch.get().handleArray(requests.length);
        long nul = nullHandle();
        for (int i = 0; i < requests.length; i++) {
            h[i] = requests[i] == null ? nul : requests[i].handle;
        }
        return h;
    }

    /** Completes the requests whose handle MPI changed in {@code h}. */
    private static void update(long[] h, Request[] requests) {
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (r != null && h[i] != r.handle) {
                r.completedWithHandle(h[i]);
            }
        }
    }

    /** {@code MPI_Waitall} through troika-mpi's typed call: one native call, nothing made per request. */
    public static void waitAll(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handleArray(requests);
        try {
            Native.mpi.waitAll(requests.length, h, 0, null);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        update(h, requests);
    }

    public static Status[] testAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = handles(s, requests);
        int flag = s.intOut();
        int st = statuses(s, requests.length);
        F.TESTALL.call(requests.length, s.at(at), s.at(flag), s.at(st));
        if (s.getInt(flag) == 0) {
            return null;
        }
        Status[] out = new Status[requests.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = Status.of(s, st + Native.statusSize * i);
        }
        update(s, at, requests);
        return out;
    }

    /** {@code MPI_Testall} through troika-mpi's typed call. */
    public static boolean testAll(Request[] requests) throws MPIException {
        MPI.check();
        long[] h = handleArray(requests);
        boolean done;
        try {
            done = Native.mpi.testAll(requests.length, h, 0, null);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
        if (done) {
            update(h, requests);
        }
        return done;
    }

    private static Status[] some(Request[] requests, boolean wait) throws MPIException {
        Scratch s = Scratch.get();
        int at = handles(s, requests);
        int outcount = s.intOut();
        int indices = s.alloc(4L * requests.length);
        int st = statuses(s, requests.length);
        (wait ? F.WAITSOME : F.TESTSOME).call(requests.length, s.at(at), s.at(outcount), s.at(indices), s.at(st));
        int n = s.getInt(outcount);
        if (n == MPI.UNDEFINED || n < 0) {
            return null;
        }
        Status[] out = new Status[n];
        for (int k = 0; k < n; k++) {
            int i = s.getInt(indices + 4 * k);
            out[k] = Status.of(s, st + Native.statusSize * k).withIndex(i);
        }
        update(s, at, requests);
        return out;
    }

    private static int[] indices(Status[] statuses) {
        if (statuses == null) {
            return null;
        }
        int[] out = new int[statuses.length];
        for (int k = 0; k < out.length; k++) {
            out[k] = statuses[k].getIndex();
        }
        return out;
    }

    public static Status[] waitSomeStatus(Request[] requests) throws MPIException {
        MPI.check();
        return some(requests, true);
    }

    public static int[] waitSome(Request[] requests) throws MPIException {
        MPI.check();
        return indices(some(requests, true));
    }

    public static Status[] testSomeStatus(Request[] requests) throws MPIException {
        MPI.check();
        return some(requests, false);
    }

    public static int[] testSome(Request[] requests) throws MPIException {
        MPI.check();
        return indices(some(requests, false));
    }

    protected static long[] getHandles(Request[] r) {
        long[] out = new long[r.length];
        for (int i = 0; i < r.length; i++) {
            out[i] = r[i] == null ? nullHandle() : r[i].handle;
        }
        return out;
    }

    protected static void setHandles(Request[] r, long[] h) {
        for (int i = 0; i < r.length; i++) {
            if (r[i] != null) {
                r[i].handle = h[i];
            }
        }
    }

    /** Room for {@code n} native statuses, {@link Native#statusSize} apart (a status is read as 32 bytes). */
    private static int statuses(Scratch s, int n) {
        return s.zeros((long) Native.statusSize * n + MpiAbi.STATUS_BYTES);
    }

    private static long statusIgnore() {
        return Native.statusIgnore;
    }

    private static final class F {
        private F() {}

        static final Native.Fn FREE = Native.fn("MPI_Request_free", "a");
        static final Native.Fn CANCEL = Native.fn("MPI_Cancel", "a");
        static final Native.Fn WAIT = Native.fn("MPI_Wait", "aa");
        static final Native.Fn TEST = Native.fn("MPI_Test", "aaa");
        static final Native.Fn GET_STATUS = Native.fn("MPI_Request_get_status", "haa");
        static final Native.Fn WAITANY = Native.fn("MPI_Waitany", "iaaa");
        static final Native.Fn TESTANY = Native.fn("MPI_Testany", "iaaaa");
        static final Native.Fn WAITALL = Native.fn("MPI_Waitall", "iaa");
        static final Native.Fn TESTALL = Native.fn("MPI_Testall", "iaaa");
        static final Native.Fn WAITSOME = Native.fn("MPI_Waitsome", "iaaaa");
        static final Native.Fn TESTSOME = Native.fn("MPI_Testsome", "iaaaa");
    }
}
