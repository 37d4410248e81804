package org.troika.worker.it;

import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.worker.RankEnv;

/** A rank that compares {@link RankEnv#current()} with what MPI itself reports, and prints one verdict line. */
public final class RankEnvChecks {
    private RankEnvChecks() {}

    public static void main(String[] args) {
        RankEnv env = RankEnv.current(); // before MPI_Init: only the launcher's variables
        boolean ok;
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            ok = env.rank() == world.rank() && env.size() == world.size() && env.localRank() == world.localRank()
                    && env.localSize() == world.localSize() && env.crossRank() == 0 && env.crossSize() == 1;
        }
        System.out.println("rank " + env.rank() + " rank-env " + (ok ? "ok" : "MISMATCH") + " " + env);
        System.exit(ok ? 0 : 1);
    }
}
