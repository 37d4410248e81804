package mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.troika.mpi.spi.Upcall;

/**
 * A reduction operation: predefined ({@link MPI#SUM}, ...) or user-defined from a {@link UserFunction}, which MPI
 * calls back through a native stub. An exception the function throws is held while MPI finishes the collective
 * and thrown from the collective call (it cannot cross into C).
 */
public final class Op implements Freeable {
    protected final UserFunction uf;
    private boolean commute;
    private Datatype datatype;
    protected long handle;

    private final String predefinedName;
    private Upcall upcall;
    private Throwable failure;

    Op(String predefinedName) {
        this.uf = null;
        this.commute = true;
        this.predefinedName = predefinedName;
    }

    /** A user-defined operation ({@code MPI_Op_create}); {@code commute} tells MPI it may reorder operands. */
    public Op(UserFunction function, boolean commute) {
        if (function == null) {
            throw new IllegalArgumentException("the user function is null");
        }
        this.uf = function;
        this.commute = commute;
        this.predefinedName = null;
    }

    void bindPredefined() {
        handle = Native.predefined(predefinedName);
    }

    boolean isUser() {
        return uf != null;
    }

    /** The native handle, creating a user operation on first use (MPI must be initialized by then). */
    long handle() throws MPIException {
        if (uf != null && upcall == null) {
            create();
        }
        return handle;
    }

    private synchronized void create() throws MPIException {
        if (upcall != null) {
            return;
        }
        Upcall u = Native.mpi.reductionFunction(new Upcall.Reduction() {
            @Override
            public void reduce(long in, long inout, long len, long type) {
                invoke(in, inout, len);
            }

            @Override
            public void failed(Throwable t) {
                failure = t;
            }
        });
        Scratch s = Scratch.get();
        int out = s.handleOut();
        try {
            F.CREATE.call(u.address(), commute ? 1 : 0, s.at(out));
        } catch (MPIException e) {
            u.close();
            throw e;
        }
        handle = s.getHandle(out);
        upcall = u;
    }

    private void invoke(long in, long inout, long lenAddress) {
        if (failure != null) {
            return; // the first failure is what the caller sees
        }
        int count = Native.mpi.memory(lenAddress, 4).order(ByteOrder.nativeOrder()).getInt(0);
        Datatype type = datatype;
        long bytes = count * type.byteExtent();
        ByteBuffer a = Native.mpi.memory(in, (int) bytes).order(ByteOrder.nativeOrder());
        ByteBuffer b = Native.mpi.memory(inout, (int) bytes).order(ByteOrder.nativeOrder());
        try {
            call(a, b, count);
        } catch (MPIException e) {
            failure = e;
        }
    }

    private void call(ByteBuffer in, ByteBuffer inout, int count) throws MPIException {
        uf.call(in, inout, count, datatype);
    }

    protected void setDatatype(Datatype t) {
        if (uf != null) {
            datatype = t;
            failure = null;
        }
    }

    /** Calls the user function on arrays, as {@code reduceLocal} of the base type does in Java. */
    protected void call(Object in, Object inOut, int count) throws MPIException {
        uf.call(in, inOut, count, datatype);
    }

    /** After a collective with this operation: throws what the user function threw, if anything. */
    void rethrowFailure() throws MPIException {
        Throwable t = failure;
        if (t == null) {
            return; // always for predefined operations
        }
        failure = null;
        if (t instanceof MPIException e) {
            throw e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new MPIException(t);
    }

    public boolean isCommutative() {
        return commute;
    }

    /** {@code MPI_Op_free}; predefined operations cannot be freed. */
    public void free() throws MPIException {
        MPI.check();
        if (uf == null) {
            throw new MPIException(MPI.ERR_OP, MPI.ERR_OP, "MPI_ERR_OP: a predefined operation cannot be freed");
        }
        if (upcall != null) {
            handle = F.FREE.inOut(handle);
            upcall.close();
            upcall = null;
        }
        handle = Native.predefined("MPI_OP_NULL");
    }

    /** A user operation is null until its first use creates it natively, and again once freed. */
    public boolean isNull() {
        return uf != null ? upcall == null : Native.mpi != null && handle == Native.predefined("MPI_OP_NULL");
    }

    private static final class F {
        private F() {}

        static final Native.Fn CREATE = Native.fn("MPI_Op_create", "aia");
        static final Native.Fn FREE = Native.fn("MPI_Op_free", "a");
    }
}
