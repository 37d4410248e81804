package org.troika.mpi;

/** The element types troika's collectives carry, with their size in bytes. {@link #LONG} is a 64-bit integer. */
public enum Datatype {
    BYTE(1),
    INT(4),
    LONG(8),
    FLOAT(4),
    DOUBLE(8);

    private final int bytes;

    Datatype(int bytes) {
        this.bytes = bytes;
    }

    /** Size of one element in bytes. */
    public int bytes() {
        return bytes;
    }
}
