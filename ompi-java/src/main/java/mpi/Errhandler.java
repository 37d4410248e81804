package mpi;

/** An error handler: {@link MPI#ERRORS_ARE_FATAL} (the default), {@link MPI#ERRORS_ABORT}, {@link MPI#ERRORS_RETURN}. */
public final class Errhandler {
    protected long handle;

    protected Errhandler(long handle) {
        this.handle = handle;
    }

    static Errhandler of(long handle) {
        return new Errhandler(handle);
    }

    protected static long getFatal() {
        return Native.predefined("MPI_ERRORS_ARE_FATAL");
    }

    protected static long getAbort() {
        return MPI.ERRORS_ABORT.handle;
    }

    protected static long getReturn() {
        return Native.predefined("MPI_ERRORS_RETURN");
    }
}
