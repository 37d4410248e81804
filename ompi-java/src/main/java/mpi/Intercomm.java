package mpi;

/** An inter-communicator between two groups ({@link Comm#createIntercomm}, spawn, accept/connect). */
public final class Intercomm extends Comm {
    protected Intercomm(long handle) {
        super(handle);
    }

    protected Intercomm(long[] commRequest) {
        super(commRequest);
    }

    @Override
    Comm wrap(long h) {
        return new Intercomm(h);
    }

    @Override
    public Intercomm clone() {
        return (Intercomm) super.clone();
    }

    @Override
    public Intercomm dup() throws MPIException {
        return (Intercomm) super.dup();
    }

    @Override
    public Intercomm iDup() throws MPIException {
        return (Intercomm) super.iDup();
    }

    @Override
    public Intercomm dupWithInfo(Info info) throws MPIException {
        return (Intercomm) super.dupWithInfo(info);
    }

    public int getRemoteSize() throws MPIException {
        MPI.check();
        return F.REMOTE_SIZE.intOut(handle);
    }

    public Group getRemoteGroup() throws MPIException {
        MPI.check();
        return new Group(F.REMOTE_GROUP.handleOut(handle));
    }

    /** {@code MPI_Intercomm_merge}: {@code high} orders this group after the other. */
    public Intracomm merge(boolean high) throws MPIException {
        MPI.check();
        return new Intracomm(F.MERGE.handleOut(handle, high ? 1 : 0));
    }

    /** {@code MPI_Comm_get_parent}: the spawning job's communicator, a null one when not spawned. */
    public static Intercomm getParent() throws MPIException {
        MPI.check();
        return new Intercomm(F.GET_PARENT.handleOut());
    }

    private static final class F {
        private F() {}

        static final Native.Fn REMOTE_SIZE = Native.fn("MPI_Comm_remote_size", "ha");
        static final Native.Fn REMOTE_GROUP = Native.fn("MPI_Comm_remote_group", "ha");
        static final Native.Fn MERGE = Native.fn("MPI_Intercomm_merge", "hia");
        static final Native.Fn GET_PARENT = Native.fn("MPI_Comm_get_parent", "a");
    }
}
