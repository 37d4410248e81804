package org.troika.mpi;

/**
 * What a receive, probe or completed request reports: the message's source rank ({@link Communicator#PROC_NULL}
 * for a receive from it), tag, error code and size in bytes.
 */
public record Status(int source, int tag, int error, int bytes) {

    /** The number of elements of {@code type} the message held. */
    public int count(Datatype type) {
        return bytes / type.bytes();
    }
}
