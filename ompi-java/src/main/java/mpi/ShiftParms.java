package mpi;

/** The source and destination ranks of {@link CartComm#shift} ({@link MPI#PROC_NULL} off a non-periodic edge). */
public final class ShiftParms {
    private final int rankSource;
    private final int rankDest;

    protected ShiftParms(int source, int dest) {
        this.rankSource = source;
        this.rankDest = dest;
    }

    public int getRankSource() {
        return rankSource;
    }

    public int getRankDest() {
        return rankDest;
    }
}
