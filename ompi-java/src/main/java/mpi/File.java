package mpi;

import java.nio.Buffer;
import org.troika.mpi.spi.MpiAbi;

/**
 * MPI-IO: a file opened collectively over a communicator. Blocking reads and writes take arrays and direct buffers
 * (as point-to-point does), non-blocking ones direct buffers; offsets and positions count etypes of the view.
 */
public final class File {
    private long handle;
    private FileView view;
    private Status beginStatus;

    /** A split collective's array argument, staged from {@code ...Begin} to {@code ...End}. */
    private ArrayCopy pendingCopy;
    private Object pendingArray;
    private int pendingFrom;
    private int pendingLength;
    private boolean pendingRead;

    /** {@code MPI_File_open} with {@code MPI_INFO_NULL}. */
    public File(Comm comm, String filename, int amode) throws MPIException {
        this(comm, filename, amode, MPI.INFO_NULL);
    }

    /** {@code MPI_File_open}: {@code amode} combines {@code MPI.MODE_*} flags. */
    public File(Comm comm, String filename, int amode, Info info) throws MPIException {
        MPI.check();
        if (filename == null) {
            throw new IllegalArgumentException("filename is null");
        }
        Scratch s = Scratch.get();
        int name = s.string(filename);
        int out = s.intOut();
        F.OPEN.call(comm.handle, s.at(name), amode, info.handle, s.at(out));
        handle = s.getLong(out);
        view = new FileView(0, MPI.BYTE, MPI.BYTE, "native");
    }

    public void close() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int at = s.intOut();
        s.buf().putLong(at, handle);
        F.CLOSE.call(s.at(at));
        handle = s.getLong(at);
    }

    public static void delete(String filename) throws MPIException {
        delete(filename, MPI.INFO_NULL);
    }

    public static void delete(String filename, Info info) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int name = s.string(filename);
        F.DELETE.call(s.at(name), info.handle);
    }

    public void setSize(long size) throws MPIException {
        MPI.check();
        F.SET_SIZE.call(handle, size);
    }

    public void preallocate(long size) throws MPIException {
        MPI.check();
        F.PREALLOCATE.call(handle, size);
    }

    /** Bytes in the file. */
    public long getSize() throws MPIException {
        MPI.check();
        return F.GET_SIZE.longOut(handle);
    }

    public Group getGroup() throws MPIException {
        MPI.check();
        return new Group(F.GET_GROUP.handleOut(handle));
    }

    public int getAMode() throws MPIException {
        MPI.check();
        return F.GET_AMODE.intOut(handle);
    }

    public void setInfo(Info info) throws MPIException {
        MPI.check();
        F.SET_INFO.call(handle, info.handle);
    }

    public Info getInfo() throws MPIException {
        MPI.check();
        return new Info(F.GET_INFO.handleOut(handle));
    }

    public void setView(long disp, Datatype etype, Datatype filetype, String datarep) throws MPIException {
        setView(disp, etype, filetype, datarep, MPI.INFO_NULL);
    }

    /** {@code MPI_File_set_view} (collective). */
    public void setView(long disp, Datatype etype, Datatype filetype, String datarep, Info info)
            throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int rep = s.string(datarep);
        F.SET_VIEW.call(handle, disp, etype.handle, filetype.handle, s.at(rep), info.handle);
        view = new FileView(disp, etype, filetype, datarep);
    }

    /** The view last set ({@code 0, MPI.BYTE, MPI.BYTE, "native"} until then). */
    public FileView getView() {
        return view;
    }

    /** A blocking data access: {@code fn(fh, [offset,] buf, count, type, status)}. */
    private Status access(Native.Fn fn, boolean explicit, long offset, Object buf, int count, Datatype type,
            boolean read) throws MPIException {
        MPI.check();
        Comm.checkType(type);
        Comm.need(buf, count, "buf");
        Staging g = Staging.get();
        long b = g.arg(buf, count, type, read ? Staging.INOUT : Staging.IN);
        Scratch s = Scratch.get();
        int st = s.status();
        try {
            if (explicit) {
                fn.call(handle, offset, b, count, type.handle, s.at(st));
            } else {
                fn.call(handle, b, count, type.handle, s.at(st));
            }
        } catch (MPIException e) {
            g.abandon();
            throw e;
        }
        g.finish();
        return Status.of(s, st);
    }

    public Status readAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        return access(F.READ_AT, true, offset, buf, count, type, true);
    }

    public Status readAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        return access(F.READ_AT_ALL, true, offset, buf, count, type, true);
    }

    public Status writeAt(long offset, Object buf, int count, Datatype type) throws MPIException {
        return access(F.WRITE_AT, true, offset, buf, count, type, false);
    }

    public Status writeAtAll(long offset, Object buf, int count, Datatype type) throws MPIException {
        return access(F.WRITE_AT_ALL, true, offset, buf, count, type, false);
    }

    /** A non-blocking data access on a direct buffer. */
    private Request start(Native.Fn fn, boolean explicit, long offset, Buffer buf, int count, Datatype type,
            boolean read) throws MPIException {
        MPI.check();
        MPI.assertDirectBuffer(buf);
        Comm.checkType(type);
        Staging.checkFits(buf, count, type);
        Scratch s = Scratch.get();
        int out = s.handleOut();
        if (explicit) {
            fn.call(handle, offset, Native.address(buf), count, type.handle, s.at(out));
        } else {
            fn.call(handle, Native.address(buf), count, type.handle, s.at(out));
        }
        return Comm.request(s.getHandle(out), read ? null : buf, read ? buf : null);
    }

    public Request iReadAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IREAD_AT, true, offset, buf, count, type, true);
    }

    public Request iReadAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IREAD_AT_ALL, true, offset, buf, count, type, true);
    }

    public Request iWriteAt(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IWRITE_AT, true, offset, buf, count, type, false);
    }

    public Request iWriteAtAll(long offset, Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IWRITE_AT_ALL, true, offset, buf, count, type, false);
    }

    public Status read(Object buf, int count, Datatype type) throws MPIException {
        return access(F.READ, false, 0, buf, count, type, true);
    }

    public Status readAll(Object buf, int count, Datatype type) throws MPIException {
        return access(F.READ_ALL, false, 0, buf, count, type, true);
    }

    public Status write(Object buf, int count, Datatype type) throws MPIException {
        return access(F.WRITE, false, 0, buf, count, type, false);
    }

    public Status writeAll(Object buf, int count, Datatype type) throws MPIException {
        return access(F.WRITE_ALL, false, 0, buf, count, type, false);
    }

    public Request iRead(Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IREAD, false, 0, buf, count, type, true);
    }

    public Request iReadAll(Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IREAD_ALL, false, 0, buf, count, type, true);
    }

    public Request iWrite(Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IWRITE, false, 0, buf, count, type, false);
    }

    public Request iWriteAll(Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IWRITE_ALL, false, 0, buf, count, type, false);
    }

    /** {@code MPI_File_seek}: {@code whence} is {@link MPI#SEEK_SET}, {@link MPI#SEEK_CUR} or {@link MPI#SEEK_END}. */
    public void seek(long offset, int whence) throws MPIException {
        MPI.check();
        F.SEEK.call(handle, offset, whence);
    }

    /** The individual file pointer, in etypes. */
    public long getPosition() throws MPIException {
        MPI.check();
        return F.GET_POSITION.longOut(handle);
    }

    /** The byte offset of an offset in etypes of the view. */
    public long getByteOffset(long offset) throws MPIException {
        MPI.check();
        return F.GET_BYTE_OFFSET.longOut(handle, offset);
    }

    public Status readShared(Object buf, int count, Datatype type) throws MPIException {
        return access(F.READ_SHARED, false, 0, buf, count, type, true);
    }

    public Status writeShared(Object buf, int count, Datatype type) throws MPIException {
        return access(F.WRITE_SHARED, false, 0, buf, count, type, false);
    }

    public Request iReadShared(Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IREAD_SHARED, false, 0, buf, count, type, true);
    }

    public Request iWriteShared(Buffer buf, int count, Datatype type) throws MPIException {
        return start(F.IWRITE_SHARED, false, 0, buf, count, type, false);
    }

    public Status readOrdered(Object buf, int count, Datatype type) throws MPIException {
        return access(F.READ_ORDERED, false, 0, buf, count, type, true);
    }

    public Status writeOrdered(Object buf, int count, Datatype type) throws MPIException {
        return access(F.WRITE_ORDERED, false, 0, buf, count, type, false);
    }

    public void seekShared(long offset, int whence) throws MPIException {
        MPI.check();
        F.SEEK_SHARED.call(handle, offset, whence);
    }

    public long getPositionShared() throws MPIException {
        MPI.check();
        return F.GET_POSITION_SHARED.longOut(handle);
    }

    /**
     * A split collective's buffer: a direct buffer as it is, an array through a native copy held until the
     * {@code ...End} call (copied back there for reads).
     */
    private long begin(Object buf, int count, Datatype type, boolean read) {
        Comm.checkType(type);
        Comm.need(buf, count, "buf");
        if (pendingCopy != null) {
            throw new IllegalStateException("a split collective is already begun on this file: end it first");
        }
        if (buf instanceof Buffer b && b.isDirect()) {
            Staging.checkFits(buf, count, type);
            return Native.address(b);
        }
        Object array = buf;
        int offset = 0;
        if (buf instanceof Buffer hb) {
            array = hb.array();
            offset = hb.arrayOffset();
        }
        Staging.checkFits(array, offset, count, type);
        int es = Staging.elementBytes(array);
        int first = (int) (type.spanLow(count) / es);
        int length = (int) ((type.spanHigh(count) + es - 1) / es) - first;
        ArrayCopy copy = Blocks.take(Math.max(1L, (long) length * es));
        copy.put(array, offset + first, length);
        pendingCopy = copy;
        pendingArray = array;
        pendingFrom = offset + first;
        pendingLength = length;
        pendingRead = read;
        return copy.base - (long) first * es;
    }

    private Status end(Native.Fn fn, Object buf) throws MPIException {
        MPI.check();
        long b = buf instanceof Buffer d && d.isDirect() ? Native.address(d) : pendingCopy == null ? 0
                : pendingCopy.base;
        Scratch s = Scratch.get();
        int st = s.status();
        try {
            fn.call(handle, b, s.at(st));
        } finally {
            ArrayCopy copy = pendingCopy;
            if (copy != null) {
                if (pendingRead) {
                    copy.get(pendingArray, pendingFrom, pendingLength);
                }
                pendingCopy = null;
                pendingArray = null;
                Blocks.give(copy);
            }
        }
        beginStatus = Status.of(s, st);
        return beginStatus;
    }

    private Status getBeginStatus() {
        return beginStatus;
    }

    public void readAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        F.READ_AT_ALL_BEGIN.call(handle, offset, begin(buf, count, type, true), count, type.handle);
    }

    public Status readAtAllEnd(Object buf) throws MPIException {
        return end(F.READ_AT_ALL_END, buf);
    }

    public void writeAtAllBegin(long offset, Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        F.WRITE_AT_ALL_BEGIN.call(handle, offset, begin(buf, count, type, false), count, type.handle);
    }

    public Status writeAtAllEnd(Object buf) throws MPIException {
        return end(F.WRITE_AT_ALL_END, buf);
    }

    public void readAllBegin(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        F.READ_ALL_BEGIN.call(handle, begin(buf, count, type, true), count, type.handle);
    }

    public Status readAllEnd(Object buf) throws MPIException {
        return end(F.READ_ALL_END, buf);
    }

    public void writeAllBegin(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        F.WRITE_ALL_BEGIN.call(handle, begin(buf, count, type, false), count, type.handle);
    }

    public Status writeAllEnd(Object buf) throws MPIException {
        return end(F.WRITE_ALL_END, buf);
    }

    public void readOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        F.READ_ORDERED_BEGIN.call(handle, begin(buf, count, type, true), count, type.handle);
    }

    public Status readOrderedEnd(Object buf) throws MPIException {
        return end(F.READ_ORDERED_END, buf);
    }

    public void writeOrderedBegin(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        F.WRITE_ORDERED_BEGIN.call(handle, begin(buf, count, type, false), count, type.handle);
    }

    public Status writeOrderedEnd(Object buf) throws MPIException {
        return end(F.WRITE_ORDERED_END, buf);
    }

    /** {@code MPI_File_get_type_extent}, in elements of the type's base. */
    public int getTypeExtent(Datatype type) throws MPIException {
        MPI.check();
        return (int) (F.GET_TYPE_EXTENT.longOut(handle, type.handle) / type.baseSize);
    }

    public void setAtomicity(boolean atomicity) throws MPIException {
        MPI.check();
        F.SET_ATOMICITY.call(handle, atomicity ? 1 : 0);
    }

    public boolean getAtomicity() throws MPIException {
        MPI.check();
        return F.GET_ATOMICITY.intOut(handle) != 0;
    }

    public void sync() throws MPIException {
        MPI.check();
        F.SYNC.call(handle);
    }

    public void setErrhandler(Errhandler errhandler) throws MPIException {
        MPI.check();
        F.SET_ERRHANDLER.call(handle, errhandler.handle);
    }

    public Errhandler getErrhandler() throws MPIException {
        MPI.check();
        return Errhandler.of(F.GET_ERRHANDLER.handleOut(handle));
    }

    public void callErrhandler(int errorCode) throws MPIException {
        MPI.check();
        F.CALL_ERRHANDLER.call(handle, errorCode);
    }

    /**
     * Functions of MPI-IO; a status is {@link MpiAbi#STATUS_BYTES} of scratch. {@code MPI_File} is a pointer in
     * both ABIs (MPICH's other handles are {@code int}s, its {@code MPI_File} is ROMIO's {@code ADIOI_FileD *}), so
     * it is passed and read as an address ({@code a}, 8 bytes), never as a handle ({@code h}).
     */
    private static final class F {
        private F() {}

        static final Native.Fn OPEN = Native.fn("MPI_File_open", "haiha");
        static final Native.Fn CLOSE = Native.fn("MPI_File_close", "a");
        static final Native.Fn DELETE = Native.fn("MPI_File_delete", "ah");
        static final Native.Fn SET_SIZE = Native.fn("MPI_File_set_size", "aa");
        static final Native.Fn PREALLOCATE = Native.fn("MPI_File_preallocate", "aa");
        static final Native.Fn GET_SIZE = Native.fn("MPI_File_get_size", "aa");
        static final Native.Fn GET_GROUP = Native.fn("MPI_File_get_group", "aa");
        static final Native.Fn GET_AMODE = Native.fn("MPI_File_get_amode", "aa");
        static final Native.Fn SET_INFO = Native.fn("MPI_File_set_info", "ah");
        static final Native.Fn GET_INFO = Native.fn("MPI_File_get_info", "aa");
        static final Native.Fn SET_VIEW = Native.fn("MPI_File_set_view", "aahhah");
        static final Native.Fn READ_AT = Native.fn("MPI_File_read_at", "aaaiha");
        static final Native.Fn READ_AT_ALL = Native.fn("MPI_File_read_at_all", "aaaiha");
        static final Native.Fn WRITE_AT = Native.fn("MPI_File_write_at", "aaaiha");
        static final Native.Fn WRITE_AT_ALL = Native.fn("MPI_File_write_at_all", "aaaiha");
        static final Native.Fn IREAD_AT = Native.fn("MPI_File_iread_at", "aaaiha");
        static final Native.Fn IREAD_AT_ALL = Native.fn("MPI_File_iread_at_all", "aaaiha");
        static final Native.Fn IWRITE_AT = Native.fn("MPI_File_iwrite_at", "aaaiha");
        static final Native.Fn IWRITE_AT_ALL = Native.fn("MPI_File_iwrite_at_all", "aaaiha");
        static final Native.Fn READ = Native.fn("MPI_File_read", "aaiha");
        static final Native.Fn READ_ALL = Native.fn("MPI_File_read_all", "aaiha");
        static final Native.Fn WRITE = Native.fn("MPI_File_write", "aaiha");
        static final Native.Fn WRITE_ALL = Native.fn("MPI_File_write_all", "aaiha");
        static final Native.Fn IREAD = Native.fn("MPI_File_iread", "aaiha");
        static final Native.Fn IREAD_ALL = Native.fn("MPI_File_iread_all", "aaiha");
        static final Native.Fn IWRITE = Native.fn("MPI_File_iwrite", "aaiha");
        static final Native.Fn IWRITE_ALL = Native.fn("MPI_File_iwrite_all", "aaiha");
        static final Native.Fn SEEK = Native.fn("MPI_File_seek", "aai");
        static final Native.Fn GET_POSITION = Native.fn("MPI_File_get_position", "aa");
        static final Native.Fn GET_BYTE_OFFSET = Native.fn("MPI_File_get_byte_offset", "aaa");
        static final Native.Fn READ_SHARED = Native.fn("MPI_File_read_shared", "aaiha");
        static final Native.Fn WRITE_SHARED = Native.fn("MPI_File_write_shared", "aaiha");
        static final Native.Fn IREAD_SHARED = Native.fn("MPI_File_iread_shared", "aaiha");
        static final Native.Fn IWRITE_SHARED = Native.fn("MPI_File_iwrite_shared", "aaiha");
        static final Native.Fn READ_ORDERED = Native.fn("MPI_File_read_ordered", "aaiha");
        static final Native.Fn WRITE_ORDERED = Native.fn("MPI_File_write_ordered", "aaiha");
        static final Native.Fn SEEK_SHARED = Native.fn("MPI_File_seek_shared", "aai");
        static final Native.Fn GET_POSITION_SHARED = Native.fn("MPI_File_get_position_shared", "aa");
        static final Native.Fn READ_AT_ALL_BEGIN = Native.fn("MPI_File_read_at_all_begin", "aaaih");
        static final Native.Fn READ_AT_ALL_END = Native.fn("MPI_File_read_at_all_end", "aaa");
        static final Native.Fn WRITE_AT_ALL_BEGIN = Native.fn("MPI_File_write_at_all_begin", "aaaih");
        static final Native.Fn WRITE_AT_ALL_END = Native.fn("MPI_File_write_at_all_end", "aaa");
        static final Native.Fn READ_ALL_BEGIN = Native.fn("MPI_File_read_all_begin", "aaih");
        static final Native.Fn READ_ALL_END = Native.fn("MPI_File_read_all_end", "aaa");
        static final Native.Fn WRITE_ALL_BEGIN = Native.fn("MPI_File_write_all_begin", "aaih");
        static final Native.Fn WRITE_ALL_END = Native.fn("MPI_File_write_all_end", "aaa");
        static final Native.Fn READ_ORDERED_BEGIN = Native.fn("MPI_File_read_ordered_begin", "aaih");
        static final Native.Fn READ_ORDERED_END = Native.fn("MPI_File_read_ordered_end", "aaa");
        static final Native.Fn WRITE_ORDERED_BEGIN = Native.fn("MPI_File_write_ordered_begin", "aaih");
        static final Native.Fn WRITE_ORDERED_END = Native.fn("MPI_File_write_ordered_end", "aaa");
        static final Native.Fn GET_TYPE_EXTENT = Native.fn("MPI_File_get_type_extent", "aha");
        static final Native.Fn SET_ATOMICITY = Native.fn("MPI_File_set_atomicity", "ai");
        static final Native.Fn GET_ATOMICITY = Native.fn("MPI_File_get_atomicity", "aa");
        static final Native.Fn SYNC = Native.fn("MPI_File_sync", "a");
        static final Native.Fn SET_ERRHANDLER = Native.fn("MPI_File_set_errhandler", "ah");
        static final Native.Fn GET_ERRHANDLER = Native.fn("MPI_File_get_errhandler", "aa");
        static final Native.Fn CALL_ERRHANDLER = Native.fn("MPI_File_call_errhandler", "ai");
    }
}
