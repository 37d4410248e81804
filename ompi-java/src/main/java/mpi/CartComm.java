package mpi;

/** A communicator with a Cartesian topology ({@link Intracomm#createCart}). */
public final class CartComm extends Intracomm {
    protected CartComm(long handle) throws MPIException {
        super(handle);
    }

    protected CartComm(long[] commRequest) {
        super(commRequest);
    }

    @Override
    Comm wrap(long h) throws MPIException {
        return new CartComm(h);
    }

    @Override
    public CartComm clone() {
        return (CartComm) super.clone();
    }

    @Override
    public CartComm dup() throws MPIException {
        return (CartComm) super.dup();
    }

    @Override
    public CartComm iDup() throws MPIException {
        return (CartComm) super.iDup();
    }

    @Override
    public CartComm dupWithInfo(Info info) throws MPIException {
        return (CartComm) super.dupWithInfo(info);
    }

    private int ndims() throws MPIException {
        return F.CARTDIM_GET.intOut(handle);
    }

    /** {@code MPI_Cart_get}. */
    public CartParms getTopo() throws MPIException {
        MPI.check();
        int n = ndims();
        Scratch s = Scratch.get();
        int dims = s.alloc(4L * n);
        int periods = s.alloc(4L * n);
        int coords = s.alloc(4L * n);
        F.CART_GET.call(handle, n, s.at(dims), s.at(periods), s.at(coords));
        int[] p = s.readInts(periods, n);
        boolean[] per = new boolean[n];
        for (int i = 0; i < n; i++) {
            per[i] = p[i] != 0;
        }
        return new CartParms(s.readInts(dims, n), per, s.readInts(coords, n));
    }

    /** {@code MPI_Cart_rank}: the rank at {@code coords}. */
    public int getRank(int[] coords) throws MPIException {
        MPI.check();
        if (coords == null) {
            throw new IllegalArgumentException("coords is null");
        }
        int n = ndims();
        if (coords.length < n) {
            throw new IllegalArgumentException("coords has " + coords.length + " entries for " + n + " dimensions");
        }
        Scratch s = Scratch.get();
        int c = s.ints(coords);
        int out = s.intOut();
        F.CART_RANK.call(handle, s.at(c), s.at(out));
        return Native.rankToJava(s.getInt(out));
    }

    /** {@code MPI_Cart_coords}. */
    public int[] getCoords(int rank) throws MPIException {
        MPI.check();
        int n = ndims();
        Scratch s = Scratch.get();
        int c = s.alloc(4L * n);
        F.CART_COORDS.call(handle, rank, n, s.at(c));
        return s.readInts(c, n);
    }

    /** {@code MPI_Cart_shift}. */
    public ShiftParms shift(int direction, int disp) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int src = s.intOut();
        int dst = s.intOut();
        F.CART_SHIFT.call(handle, direction, disp, s.at(src), s.at(dst));
        return new ShiftParms(Native.rankToJava(s.getInt(src)), Native.rankToJava(s.getInt(dst)));
    }

    /** {@code MPI_Cart_sub}: keeps the dimensions whose entry is true. */
    public CartComm sub(boolean[] remainDims) throws MPIException {
        MPI.check();
        if (remainDims == null) {
            throw new IllegalArgumentException("remainDims is null");
        }
        int[] keep = new int[remainDims.length];
        for (int i = 0; i < keep.length; i++) {
            keep[i] = remainDims[i] ? 1 : 0;
        }
        Scratch s = Scratch.get();
        int k = s.ints(keep);
        int out = s.handleOut();
        F.CART_SUB.call(handle, s.at(k), s.at(out));
        return new CartComm(s.getHandle(out));
    }

    /** {@code MPI_Cart_map}: this process's rank in an optimised mapping, or {@link MPI#UNDEFINED}. */
    public int map(int[] dims, boolean[] periods) throws MPIException {
        MPI.check();
        if (dims == null || periods == null || dims.length != periods.length) {
            throw new IllegalArgumentException("dims and periods must have one entry per dimension");
        }
        int[] per = new int[periods.length];
        for (int i = 0; i < per.length; i++) {
            per[i] = periods[i] ? 1 : 0;
        }
        Scratch s = Scratch.get();
        int d = s.ints(dims);
        int p = s.ints(per);
        int out = s.intOut();
        F.CART_MAP.call(handle, dims.length, s.at(d), s.at(p), s.at(out));
        return s.getInt(out);
    }

    /** {@code MPI_Dims_create}: fills the zero entries of {@code dims} with a balanced factorisation of {@code nnodes}. */
    public static void createDims(int nnodes, int[] dims) throws MPIException {
        MPI.check();
        if (dims == null) {
            throw new IllegalArgumentException("dims is null");
        }
        Scratch s = Scratch.get();
        int d = s.ints(dims);
        F.DIMS_CREATE.call(nnodes, dims.length, s.at(d));
        int[] out = s.readInts(d, dims.length);
        System.arraycopy(out, 0, dims, 0, dims.length);
    }

    private static final class F {
        private F() {}

        static final Native.Fn CARTDIM_GET = Native.fn("MPI_Cartdim_get", "ha");
        static final Native.Fn CART_GET = Native.fn("MPI_Cart_get", "hiaaa");
        static final Native.Fn CART_RANK = Native.fn("MPI_Cart_rank", "haa");
        static final Native.Fn CART_COORDS = Native.fn("MPI_Cart_coords", "hiia");
        static final Native.Fn CART_SHIFT = Native.fn("MPI_Cart_shift", "hiiaa");
        static final Native.Fn CART_SUB = Native.fn("MPI_Cart_sub", "haa");
        static final Native.Fn CART_MAP = Native.fn("MPI_Cart_map", "hiaaa");
        static final Native.Fn DIMS_CREATE = Native.fn("MPI_Dims_create", "iia");
    }
}
