package mpi;

/** A communicator with a graph or distributed graph topology. */
public final class GraphComm extends Intracomm {
    protected GraphComm(long handle) throws MPIException {
        super(handle);
    }

    protected GraphComm(long[] commRequest) {
        super(commRequest);
    }

    @Override
    Comm wrap(long h) throws MPIException {
        return new GraphComm(h);
    }

    @Override
    public GraphComm clone() {
        return (GraphComm) super.clone();
    }

    @Override
    public GraphComm dup() throws MPIException {
        return (GraphComm) super.dup();
    }

    @Override
    public GraphComm iDup() throws MPIException {
        return (GraphComm) super.iDup();
    }

    @Override
    public GraphComm dupWithInfo(Info info) throws MPIException {
        return (GraphComm) super.dupWithInfo(info);
    }

    /** {@code MPI_Graph_get}. */
    public GraphParms getDims() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int nn = s.intOut();
        int ne = s.intOut();
        F.GRAPHDIMS_GET.call(handle, s.at(nn), s.at(ne));
        int nnodes = s.getInt(nn);
        int nedges = s.getInt(ne);
        int index = s.alloc(4L * nnodes);
        int edges = s.alloc(4L * nedges);
        F.GRAPH_GET.call(handle, nnodes, nedges, s.at(index), s.at(edges));
        return new GraphParms(s.readInts(index, nnodes), s.readInts(edges, nedges));
    }

    /** {@code MPI_Graph_neighbors}. */
    public int[] getNeighbors(int rank) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int cnt = s.intOut();
        F.GRAPH_NEIGHBORS_COUNT.call(handle, rank, s.at(cnt));
        int n = s.getInt(cnt);
        int out = s.alloc(4L * n);
        F.GRAPH_NEIGHBORS.call(handle, rank, n, s.at(out));
        return s.readInts(out, n);
    }

    /** {@code MPI_Dist_graph_neighbors}. */
    public DistGraphNeighbors getDistGraphNeighbors() throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int in = s.intOut();
        int out = s.intOut();
        int weighted = s.intOut();
        F.DIST_GRAPH_NEIGHBORS_COUNT.call(handle, s.at(in), s.at(out), s.at(weighted));
        int indeg = s.getInt(in);
        int outdeg = s.getInt(out);
        boolean w = s.getInt(weighted) != 0;
        int src = s.alloc(4L * indeg);
        int srcw = s.alloc(4L * indeg);
        int dst = s.alloc(4L * outdeg);
        int dstw = s.alloc(4L * outdeg);
        F.DIST_GRAPH_NEIGHBORS.call(handle, indeg, s.at(src), s.at(srcw), outdeg, s.at(dst), s.at(dstw));
        return new DistGraphNeighbors(s.readInts(src, indeg), s.readInts(srcw, indeg), s.readInts(dst, outdeg),
                s.readInts(dstw, outdeg), w);
    }

    /** {@code MPI_Graph_map}: this process's rank in an optimised mapping, or {@link MPI#UNDEFINED}. */
    public int map(int[] index, int[] edges) throws MPIException {
        MPI.check();
        if (index == null || edges == null) {
            throw new IllegalArgumentException("index and edges must not be null");
        }
        Scratch s = Scratch.get();
        int i = s.ints(index);
        int e = s.ints(edges);
        int out = s.intOut();
        F.GRAPH_MAP.call(handle, index.length, s.at(i), s.at(e), s.at(out));
        return s.getInt(out);
    }

    private static final class F {
        private F() {}

        static final Native.Fn GRAPHDIMS_GET = Native.fn("MPI_Graphdims_get", "haa");
        static final Native.Fn GRAPH_GET = Native.fn("MPI_Graph_get", "hiiaa");
        static final Native.Fn GRAPH_NEIGHBORS_COUNT = Native.fn("MPI_Graph_neighbors_count", "hia");
        static final Native.Fn GRAPH_NEIGHBORS = Native.fn("MPI_Graph_neighbors", "hiia");
        static final Native.Fn DIST_GRAPH_NEIGHBORS_COUNT = Native.fn("MPI_Dist_graph_neighbors_count", "haaa");
        static final Native.Fn DIST_GRAPH_NEIGHBORS = Native.fn("MPI_Dist_graph_neighbors", "hiaaiaa");
        static final Native.Fn GRAPH_MAP = Native.fn("MPI_Graph_map", "hiaaa");
    }
}
