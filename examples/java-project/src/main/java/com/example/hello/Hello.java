package com.example.hello;

import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.worker.RankEnv;

/**
 * Every rank contributes its rank number; an allreduce sums them, so every rank must print
 * {@code sum = size * (size - 1) / 2}. Run with {@code troika run -np 4 java -jar target/troika-hello-1.0.jar}.
 */
public final class Hello {
    private Hello() {}

    public static void main(String[] args) {
        RankEnv env = RankEnv.current(); // set by troika run: rank, local rank, host as planned
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            long[] value = {world.rank()};
            world.allreduce(value, Op.SUM);
            long size = world.size();
            boolean ok = value[0] == size * (size - 1) / 2 && env.rank() == world.rank();
            // one write per line, so the launcher's per-rank tags never split it
            System.out.print(String.format("hello from rank %d of %d on %s (local rank %d): sum %d %s%n",
                    world.rank(), size, env.hostname(), env.localRank(), value[0], ok ? "ok" : "WRONG"));
            System.out.flush();
            if (!ok) {
                System.exit(1);
            }
        }
    }
}
