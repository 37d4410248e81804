package org.troika.mpi.it;

import com.sun.jna.NativeLibrary;
import org.troika.mpi.Mpi;
import org.troika.mpi.MpiLibrary;

/**
 * A rank that loads MPICH itself (as a program's own native library linking MPI would) before {@code Mpi.init()}:
 * UCX comes in with it and reads {@code UCX_ERROR_SIGNALS} before troika-mpi could set it. Prints "refused: ..." when
 * Mpi.init refuses, "initialised" when it goes on.
 */
public final class UcxFirstMain {
    private UcxFirstMain() {}

    public static void main(String[] args) {
        if (System.getenv("UCX_ERROR_SIGNALS") != null) {
            System.out.println("UCX_ERROR_SIGNALS is set in the test's environment: nothing to check");
            System.exit(3);
        }
        NativeLibrary.getInstance(MpiLibrary.MPICH);
        try (Mpi mpi = Mpi.init()) {
            System.out.println("initialised");
        } catch (IllegalStateException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
