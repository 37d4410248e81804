package mpi;

import org.troika.mpi.MpiException;

/** A group of processes. Ranks use the Java constants ({@link MPI#UNDEFINED}, {@link MPI#PROC_NULL}). */
public final class Group implements Freeable {
    protected long handle;
    private static long nullHandle;

    protected Group(long handle) {
        this.handle = handle;
    }

    protected static long getEmpty() {
        return Native.predefined("MPI_GROUP_EMPTY");
    }

    public int getSize() throws MPIException {
        MPI.check();
        try {
            return Native.mpi.groupSize(handle);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    /** This process's rank in the group, or {@link MPI#UNDEFINED}. */
    public int getRank() throws MPIException {
        MPI.check();
        try {
            return Native.mpi.groupRank(handle);
        } catch (MpiException e) {
            throw Native.exception(e);
        }
    }

    public void free() throws MPIException {
        MPI.check();
        handle = F.FREE.inOut(handle);
    }

    public boolean isNull() {
        if (nullHandle == 0 && Native.mpi != null) {
            nullHandle = Native.predefined("MPI_GROUP_NULL");
        }
        return handle == nullHandle;
    }

    private static int[] ranks(int[] ranks) {
        if (ranks == null) {
            throw new IllegalArgumentException("ranks is null");
        }
        return ranks;
    }

    public static int[] translateRanks(Group group1, int[] ranks1, Group group2) throws MPIException {
        MPI.check();
        int[] native1 = Native.ranksToNative(ranks(ranks1));
        Scratch s = Scratch.get();
        int in = s.ints(native1);
        int out = s.alloc(4L * native1.length);
        F.TRANSLATE_RANKS.call(group1.handle, native1.length, s.at(in), group2.handle, s.at(out));
        int[] r = s.readInts(out, native1.length);
        for (int i = 0; i < r.length; i++) {
            r[i] = Native.rankToJava(r[i]);
        }
        return r;
    }

    public static int compare(Group group1, Group group2) throws MPIException {
        MPI.check();
        return F.COMPARE.intOut(group1.handle, group2.handle);
    }

    private static Group two(Native.Fn fn, Group a, Group b) throws MPIException {
        MPI.check();
        Scratch s = Scratch.get();
        int out = s.handleOut();
        fn.call(a.handle, b.handle, s.at(out));
        return new Group(s.getHandle(out));
    }

    public static Group union(Group group1, Group group2) throws MPIException {
        return two(F.UNION, group1, group2);
    }

    public static Group intersection(Group group1, Group group2) throws MPIException {
        return two(F.INTERSECTION, group1, group2);
    }

    public static Group difference(Group group1, Group group2) throws MPIException {
        return two(F.DIFFERENCE, group1, group2);
    }

    private Group select(Native.Fn fn, int[] ranks) throws MPIException {
        MPI.check();
        ranks(ranks);
        Scratch s = Scratch.get();
        int in = s.ints(ranks);
        int out = s.handleOut();
        fn.call(handle, ranks.length, s.at(in), s.at(out));
        return new Group(s.getHandle(out));
    }

    public Group incl(int[] ranks) throws MPIException {
        return select(F.INCL, ranks);
    }

    public Group excl(int[] ranks) throws MPIException {
        return select(F.EXCL, ranks);
    }

    private Group range(Native.Fn fn, int[][] ranges) throws MPIException {
        MPI.check();
        if (ranges == null) {
            throw new IllegalArgumentException("ranges is null");
        }
        int[] flat = new int[3 * ranges.length];
        for (int i = 0; i < ranges.length; i++) {
            if (ranges[i] == null || ranges[i].length != 3) {
                throw new IllegalArgumentException("range " + i + " is not {first, last, stride}");
            }
            System.arraycopy(ranges[i], 0, flat, 3 * i, 3);
        }
        Scratch s = Scratch.get();
        int in = s.ints(flat);
        int out = s.handleOut();
        fn.call(handle, ranges.length, s.at(in), s.at(out));
        return new Group(s.getHandle(out));
    }

    public Group rangeIncl(int[][] ranges) throws MPIException {
        return range(F.RANGE_INCL, ranges);
    }

    public Group rangeExcl(int[][] ranges) throws MPIException {
        return range(F.RANGE_EXCL, ranges);
    }

    private static final class F {
        private F() {}

        static final Native.Fn FREE = Native.fn("MPI_Group_free", "a");
        static final Native.Fn TRANSLATE_RANKS = Native.fn("MPI_Group_translate_ranks", "hiaha");
        static final Native.Fn COMPARE = Native.fn("MPI_Group_compare", "hha");
        static final Native.Fn UNION = Native.fn("MPI_Group_union", "hha");
        static final Native.Fn INTERSECTION = Native.fn("MPI_Group_intersection", "hha");
        static final Native.Fn DIFFERENCE = Native.fn("MPI_Group_difference", "hha");
        static final Native.Fn INCL = Native.fn("MPI_Group_incl", "hiaa");
        static final Native.Fn EXCL = Native.fn("MPI_Group_excl", "hiaa");
        static final Native.Fn RANGE_INCL = Native.fn("MPI_Group_range_incl", "hiaa");
        static final Native.Fn RANGE_EXCL = Native.fn("MPI_Group_range_excl", "hiaa");
    }
}
