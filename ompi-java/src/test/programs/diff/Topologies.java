package diff;

import java.nio.IntBuffer;
import mpi.CartComm;
import mpi.CartParms;
import mpi.DistGraphNeighbors;
import mpi.GraphComm;
import mpi.GraphParms;
import mpi.Intracomm;
import mpi.MPI;
import mpi.ShiftParms;

/** Cartesian, graph and distributed graph topologies, and the neighbourhood collectives on each. */
final class Topologies {
    private Topologies() {}

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int n = w.getSize();

        Out.section("cartesian");
        int[] dims = new int[2];
        CartComm.createDims(n, dims);
        int[] fixed = {0, 1};
        CartComm.createDims(n, fixed);
        Out.p("createDims " + Out.str(dims) + " with a fixed dimension " + Out.str(fixed));
        CartComm cart = w.createCart(dims, new boolean[] {true, false}, false);
        CartParms p = cart.getTopo();
        Out.p("topology " + cart.getTopology() + " dims " + p.getDimCount() + " " + p.getDim(0) + "x" + p.getDim(1)
                + " periods " + p.getPeriod(0) + " " + p.getPeriod(1) + " coords " + p.getCoord(0) + "," + p.getCoord(1));
        Out.p("coords of every rank:");
        for (int r = 0; r < n; r++) {
            int[] c = cart.getCoords(r);
            Out.p("  " + r + " -> " + Out.str(c) + " -> " + cart.getRank(c));
        }
        for (int dir = 0; dir < 2; dir++) {
            for (int disp = -1; disp <= 2; disp += 3) {
                ShiftParms s = cart.shift(dir, disp);
                Out.p("shift dir " + dir + " disp " + disp + " source " + s.getRankSource() + " dest "
                        + s.getRankDest());
            }
        }
        CartComm row = cart.sub(new boolean[] {false, true});
        Out.p("sub size " + row.getSize() + " rank " + row.getRank() + " dims " + row.getTopo().getDimCount());
        Out.p("map " + cart.map(dims, new boolean[] {true, false}));
        CartComm cdup = cart.dup();
        Out.p("dup topology " + cdup.getTopology() + " " + cdup.getTopo().getDim(0));
        // the neighbourhood collectives on a ring of all processes: on a grid a PROC_NULL neighbour leaves its slot of
        // an array to whatever Open MPI's binding had there, and two neighbours that are one process (a periodic
        // dimension of 2) pair their messages differently in Open MPI and MPICH
        CartComm torus = w.createCart(new int[] {n}, new boolean[] {true}, false);
        int[] nb = new int[2];
        torus.neighborAllGather(new int[] {rank}, 1, MPI.INT, nb, 1, MPI.INT);
        Out.p("neighborAllGather " + Out.str(nb));
        int[] out = {rank * 10, rank * 10 + 1};
        int[] got = new int[2];
        torus.neighborAllToAll(out, 1, MPI.INT, got, 1, MPI.INT);
        Out.p("neighborAllToAll " + Out.str(got));
        int[] counts = {1, 1};
        int[] displs = {1, 0};
        int[] gv = new int[2];
        torus.neighborAllGatherv(new int[] {rank + 100}, 1, MPI.INT, gv, counts, displs, MPI.INT);
        Out.p("neighborAllGatherv " + Out.str(gv));
        int[] av = new int[2];
        torus.neighborAllToAllv(out, counts, new int[] {0, 1}, MPI.INT, av, counts, displs, MPI.INT);
        Out.p("neighborAllToAllv " + Out.str(av));
        IntBuffer ib = PointToPoint.ints(rank);
        IntBuffer ob = MPI.newIntBuffer(2);
        torus.iNeighborAllGather(ib, 1, MPI.INT, ob, 1, MPI.INT).waitFor();
        IntBuffer ob2 = MPI.newIntBuffer(2);
        IntBuffer outb = PointToPoint.ints(out);
        torus.iNeighborAllToAll(outb, 1, MPI.INT, ob2, 1, MPI.INT).waitFor();
        IntBuffer ob3 = MPI.newIntBuffer(2);
        torus.iNeighborAllGatherv(ib, 1, MPI.INT, ob3, counts, displs, MPI.INT).waitFor();
        IntBuffer ob4 = MPI.newIntBuffer(2);
        torus.iNeighborAllToAllv(outb, counts, new int[] {0, 1}, MPI.INT, ob4, counts, displs, MPI.INT).waitFor();
        Out.p("non-blocking neighbours " + Out.str(ob) + Out.str(ob2) + Out.str(ob3) + Out.str(ob4));
        torus.free();
        cdup.free();
        row.free();
        cart.free();

        Out.section("graph");
        // a ring with a chord from 0 to the middle
        int[] index = new int[n];
        java.util.List<Integer> edges = new java.util.ArrayList<>();
        for (int r = 0; r < n; r++) {
            edges.add((r + 1) % n);
            edges.add((r + n - 1) % n);
            if (r == 0) {
                edges.add(n / 2);
            }
            if (r == n / 2) {
                edges.add(0);
            }
            index[r] = edges.size();
        }
        int[] e = edges.stream().mapToInt(Integer::intValue).toArray();
        GraphComm graph = w.createGraph(index, e, false);
        GraphParms gp = graph.getDims();
        Out.p("topology " + graph.getTopology() + " index count " + gp.getIndexCount() + " last index "
                + gp.getIndex(gp.getIndexCount() - 1) + " edges " + gp.getEdgeCount() + " edge 2 " + gp.getEdge(2));
        for (int r = 0; r < n; r++) {
            Out.p("neighbours of " + r + " " + Out.str(graph.getNeighbors(r)));
        }
        Out.p("map " + graph.map(index, e));
        int deg = graph.getNeighbors(rank).length;
        int[] gnb = new int[deg];
        graph.neighborAllGather(new int[] {rank * 2}, 1, MPI.INT, gnb, 1, MPI.INT);
        Out.p("graph neighborAllGather " + Out.str(gnb));
        graph.free();

        Out.section("distributed graph");
        // each rank declares its edge to the next rank (weight = rank + 1) and, rank 0 only, to the last rank
        int[] sources = {rank};
        int[] degrees = {rank == 0 ? 2 : 1};
        int[] dest = rank == 0 ? new int[] {1 % n, n - 1} : new int[] {(rank + 1) % n};
        int[] weights = rank == 0 ? new int[] {1, 9} : new int[] {rank + 1};
        GraphComm dg = w.createDistGraph(sources, degrees, dest, weights, MPI.INFO_NULL, false);
        DistGraphNeighbors dn = dg.getDistGraphNeighbors();
        Out.p("topology " + dg.getTopology() + " in " + dn.getInDegree() + " out " + dn.getOutDegree() + " weighted "
                + dn.isWeighted());
        // MPI_Dist_graph_create leaves the order of a process's neighbours to the library: print them sorted
        java.util.TreeSet<String> edgesSeen = new java.util.TreeSet<>();
        for (int i = 0; i < dn.getInDegree(); i++) {
            edgesSeen.add("source " + dn.getSource(i) + " weight " + dn.getSourceWeight(i));
        }
        for (int i = 0; i < dn.getOutDegree(); i++) {
            edgesSeen.add("destination " + dn.getDestination(i) + " weight " + dn.getDestinationWeight(i));
        }
        Out.p("  " + edgesSeen);
        int[] dgIn = new int[dn.getInDegree()];
        dg.neighborAllGather(new int[] {rank + 1000}, 1, MPI.INT, dgIn, 1, MPI.INT);
        java.util.Arrays.sort(dgIn);
        Out.p("dist graph neighborAllGather " + Out.str(dgIn));
        GraphComm du = w.createDistGraph(sources, degrees, dest, MPI.INFO_NULL, false);
        Out.p("unweighted weighted " + du.getDistGraphNeighbors().isWeighted() + " in "
                + du.getDistGraphNeighbors().getInDegree());
        int[] ins = {(rank + n - 1) % n};
        int[] outs = {(rank + 1) % n};
        GraphComm adj = w.createDistGraphAdjacent(ins, new int[] {5}, outs, new int[] {5}, MPI.INFO_NULL, false);
        GraphComm adju = w.createDistGraphAdjacent(ins, outs, MPI.INFO_NULL, false);
        DistGraphNeighbors an = adj.getDistGraphNeighbors();
        Out.p("adjacent in " + an.getSource(0) + " out " + an.getDestination(0) + " weighted " + an.isWeighted()
                + " unweighted form " + adju.getDistGraphNeighbors().isWeighted());
        int[] ring = new int[1];
        adj.neighborAllToAll(new int[] {rank * 3}, 1, MPI.INT, ring, 1, MPI.INT);
        Out.p("adjacent neighborAllToAll " + ring[0]);
        for (GraphComm c : new GraphComm[] {dg, du, adj, adju}) {
            c.free();
        }
        w.barrier();
    }
}
