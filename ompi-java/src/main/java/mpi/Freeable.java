package mpi;

/** An MPI object whose native resources are released by {@link #free()}. */
public interface Freeable {
    void free() throws MPIException;
}
