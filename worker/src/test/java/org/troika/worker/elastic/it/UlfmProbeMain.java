package org.troika.worker.elastic.it;

import org.troika.mpi.Mpi;
import org.troika.mpi.Ulfm;

/** Prints {@code ulfm available=B} and, when not, {@code ulfm error=MESSAGE}; for {@link ShrinkMpiIntegrationTest}. */
public final class UlfmProbeMain {
    private UlfmProbeMain() {}

    public static void main(String[] args) {
        try (Mpi mpi = Mpi.init()) {
            System.out.println("ulfm available=" + Ulfm.available() + " backend="
                    + mpi.backend().getClass().getSimpleName());
            try {
                Ulfm.get();
            } catch (UnsupportedOperationException e) {
                System.out.println("ulfm error=" + e.getMessage());
            }
        }
    }
}
