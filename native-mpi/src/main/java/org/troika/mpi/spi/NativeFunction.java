package org.troika.mpi.spi;

/**
 * One C function of the MPI library, bound by name through {@link NativeMpi#function}: the calls troika-mpi has no
 * typed method for (derived datatypes, topologies, attributes, one-sided, I/O, ...), which the drop-in {@code mpi}
 * package makes. Arguments are passed as {@code long}s in the order of the C prototype and converted as the
 * signature says; the result is the function's return value (an MPI error code for MPI functions).
 *
 * <p>Signature letters, one per argument: {@code i} a C {@code int}; {@code h} a handle ({@code MPI_Comm},
 * {@code MPI_Datatype}, ...: a pointer in Open MPI's ABI, an {@code int} in MPICH's); {@code a} an address or a
 * 64-bit integer ({@code MPI_Aint}, {@code MPI_Offset}, {@code MPI_Count}). A signature starting with {@code d:}
 * is a function returning {@code double} (call it with {@link #callDouble}).
 */
public interface NativeFunction {
    /** Calls the function with one value per signature letter; returns its {@code int} result. */
    int call(long... args);

    /** Calls a function declared with a {@code d:} signature; returns its {@code double} result. */
    double callDouble(long... args);

    /** The kinds of a signature's arguments and whether the function returns {@code double}. */
    record Signature(String name, char[] kinds, boolean returnsDouble) {
        /** Parses and checks a signature ({@code "hia"}, {@code "d:"}, ...). */
        public static Signature parse(String name, String signature) {
            boolean d = signature.startsWith("d:");
            String args = d ? signature.substring(2) : signature;
            for (char c : args.toCharArray()) {
                if (c != 'i' && c != 'h' && c != 'a') {
                    throw new IllegalArgumentException("signature of " + name + ": '" + c + "' is not i, h or a");
                }
            }
            return new Signature(name, args.toCharArray(), d);
        }

        /** Throws unless {@code args} has one value per argument. */
        public void checkArity(long[] args) {
            if (args.length != kinds.length) {
                throw new IllegalArgumentException(name + " takes " + kinds.length + " arguments, got " + args.length);
            }
        }
    }
}
