package diff;

import mpi.Comm;
import mpi.Group;
import mpi.Info;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;

/** Groups, communicator constructors, comparisons, names, attributes, info objects, intercommunicators. */
final class Communicators {
    private Communicators() {}

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int n = w.getSize();

        Out.section("groups");
        Group g = w.getGroup();
        Out.p("world group size " + g.getSize() + " rank " + g.getRank());
        int[] evens = new int[(n + 1) / 2];
        for (int i = 0; i < evens.length; i++) {
            evens[i] = 2 * i;
        }
        Group even = g.incl(evens);
        Group odd = g.excl(evens);
        Group first = g.rangeIncl(new int[][] {{0, n - 1, 2}});
        Group rest = g.rangeExcl(new int[][] {{0, 0, 1}});
        Out.p("even size " + even.getSize() + " rank " + even.getRank() + " odd rank " + odd.getRank()
                + " range rank " + first.getRank() + " rest size " + rest.getSize() + " rank " + rest.getRank());
        Group u = Group.union(even, odd);
        Group in = Group.intersection(even, first);
        Group d = Group.difference(g, even);
        Out.p("union size " + u.getSize() + " compare world " + Group.compare(u, g) + " intersection compare even "
                + Group.compare(in, even) + " difference compare odd " + Group.compare(d, odd) + " even vs odd "
                + Group.compare(even, odd));
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        Out.p("translate world->even " + Out.str(Group.translateRanks(g, all, even)));
        Out.p("translate even->world " + Out.str(Group.translateRanks(even, new int[] {0, evens.length - 1}, g)));
        Out.p("translate proc null " + Out.str(Group.translateRanks(g, new int[] {MPI.PROC_NULL}, even)));
        Out.p("empty " + MPI.GROUP_EMPTY.getSize() + " " + Group.compare(MPI.GROUP_EMPTY,
                Group.intersection(even, odd)));
        for (Group x : new Group[] {even, odd, first, rest, u, in, d}) {
            x.free();
        }
        Out.p("freed null " + even.isNull());

        Out.section("communicators");
        Intracomm dup = w.dup();
        Out.p("dup compare " + Comm.compare(w, dup) + " self compare " + Comm.compare(w, w) + " world vs self "
                + Comm.compare(w, MPI.COMM_SELF) + " size " + dup.getSize() + " rank " + dup.getRank());
        Intracomm cl = w.clone();
        Out.p("clone compare " + Comm.compare(w, cl));
        Intracomm idup = w.iDup();
        Request req = idup.getRequest();
        req.waitFor();
        Out.p("iDup compare " + Comm.compare(w, idup) + " request null after wait " + req.isNull());
        Info info = new Info();
        info.set("troika_hint", "1");
        Intracomm dwi = w.dupWithInfo(info);
        Out.p("dupWithInfo compare " + Comm.compare(w, dwi));
        Intracomm half = w.split(rank % 2, -rank);
        Out.p("split size " + half.getSize() + " rank " + half.getRank() + " compare " + Comm.compare(w, half));
        Intracomm none = w.split(rank == 0 ? MPI.UNDEFINED : 1, 0);
        Out.p("split undefined null " + none.isNull());
        Intracomm shared = w.splitType(Comm.TYPE_SHARED, rank, MPI.INFO_NULL);
        Out.p("splitType shared size " + shared.getSize() + " rank " + shared.getRank());
        Group eg = w.getGroup().incl(new int[] {0, n - 1});
        Intracomm created = w.create(eg);
        Out.p("create null " + created.isNull() + (created.isNull() ? "" : " size " + created.getSize() + " rank "
                + created.getRank()));
        Intracomm cg = null;
        if (rank == 0 || rank == n - 1) {
            cg = w.createGroup(eg, 7);
            Out.p("createGroup size " + cg.getSize() + " rank " + cg.getRank());
        }
        dup.setName("my dup");
        Out.p("name " + dup.getName());
        Out.p("dup topology " + dup.getTopology() + " inter " + dup.isInter());
        for (Intracomm c : new Intracomm[] {dup, cl, idup, dwi, half, shared}) {
            c.free();
        }
        if (!created.isNull()) {
            created.free();
        }
        if (cg != null) {
            cg.free();
        }
        Out.p("freed null " + dup.isNull() + " " + half.isNull());

        Out.section("attributes");
        int key = Comm.createKeyval();
        w.setAttr(key, new int[] {rank, 42});
        Object got = w.getAttr(key);
        Out.p("attr " + Out.str(got));
        Intracomm withAttr = w.dup();
        Out.p("copied by dup " + Out.str(withAttr.getAttr(key)));
        w.setAttr(key, "replaced");
        Out.p("replaced " + w.getAttr(key) + " dup keeps " + Out.str(withAttr.getAttr(key)));
        w.deleteAttr(key);
        Out.p("deleted " + w.getAttr(key));
        withAttr.free();
        Comm.freeKeyval(key);

        Out.section("info");
        Info i2 = new Info();
        i2.set("b", "two");
        i2.set("a", "one");
        i2.set("b", "zwei");
        Out.p("size " + i2.size() + " get a " + i2.get("a") + " b " + i2.get("b") + " missing " + i2.get("c"));
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < i2.size(); i++) {
            keys.append(i2.getKey(i)).append(' ');
        }
        Out.p("keys " + keys.toString().trim());
        Info i3 = i2.dup();
        i2.delete("a");
        Out.p("after delete " + i2.size() + " dup " + i3.size() + " " + i3.get("a"));
        Info i4 = i3.clone();
        Out.p("clone " + i4.get("b"));
        i2.free();
        i3.free();
        i4.free();
        info.free();
        Out.p("freed null " + i2.isNull());

        Out.section("intercommunicators");
        Intracomm local = w.split(rank % 2, rank);
        int remoteLeader = rank % 2 == 0 ? 1 : 0;
        Intercomm inter = w.createIntercomm(local, 0, remoteLeader, 55);
        Out.p("inter " + inter.isInter() + " size " + inter.getSize() + " remote " + inter.getRemoteSize()
                + " remote group " + inter.getRemoteGroup().getSize() + " rank " + inter.getRank());
        int[] v = {rank};
        int[] r = new int[1];
        int leaderHere = local.getRank() == 0 ? MPI.ROOT : MPI.PROC_NULL;
        if (rank % 2 == 0) {
            inter.bcast(new int[] {100 + rank}, 1, MPI.INT, leaderHere);
            inter.bcast(r, 1, MPI.INT, 0);
        } else {
            inter.bcast(r, 1, MPI.INT, 0);
            inter.bcast(new int[] {200 + rank}, 1, MPI.INT, leaderHere);
        }
        Out.p("inter bcast received " + r[0]);
        int[] sum = new int[1];
        inter.allReduce(v, sum, 1, MPI.INT, MPI.SUM);
        Out.p("inter allReduce (the other group's sum) " + sum[0]);
        Intercomm idup2 = inter.dup();
        Out.p("inter dup compare " + Comm.compare(inter, idup2));
        Intracomm merged = inter.merge(rank % 2 == 1);
        Out.p("merged size " + merged.getSize() + " rank " + merged.getRank());
        Intercomm parent = Intercomm.getParent();
        Out.p("parent null " + parent.isNull());
        merged.free();
        idup2.free();
        inter.free();
        local.free();
        w.barrier();
    }
}
