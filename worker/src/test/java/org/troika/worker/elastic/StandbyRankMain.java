package org.troika.worker.elastic;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.troika.common.ElasticExitCodes;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.wire.ElasticMessage;

/**
 * One rank of {@code StandbyRanksMpiIntegrationTest}: a launch with standby ranks ({@code TROIKA_ELASTIC_STANDBY_FROM}
 * in the environment). The ranks below it form the world; the others wait in {@link ElasticWorld#of} until the world
 * activates them ({@code ACTIVATE}, a comma-separated list of launch ranks, in one change) or dismisses them when it
 * ends. Every rank of the world prints {@code id I rank R size S sum X} before and after the change (X: an allreduce of
 * 1 per rank over {@link ElasticWorld#current()}), an activated one {@code id I joined rank R size S} first. Args:
 * {@code STORE_DIR ACTIVATE}, or {@code STORE_DIR kill0} ({@link #leaderDies}).
 */
public final class StandbyRankMain {
    private StandbyRankMain() {}

    public static void main(String[] args) {
        try (Mpi mpi = Mpi.init()) {
            Communicator launch = Mpi.world();
            int id = launch.rank();
            ElasticWorld w = ElasticWorld.of(launch, "h" + id, System.getenv()); // a standby rank waits in here
            if (args[1].equals("kill0")) {
                leaderDies(w, id, args[0]);
            } else {
                activateAndEnd(w, launch, id, args);
            }
        }
        System.exit(0);
    }

    private static void activateAndEnd(ElasticWorld w, Communicator launch, int id, String[] args) {
        List<ElasticMessage.ChangeWorld.Activate> activate = new ArrayList<>();
        for (String a : args[1].split(",")) {
            activate.add(new ElasticMessage.ChangeWorld.Activate("s" + a, Integer.parseInt(a)));
        }
        if (w.joined()) {
            System.out.println("id " + id + " joined rank " + w.current().rank() + " size " + w.current().size());
        } else {
            sum(w, id);
            ElasticContext before = new ElasticContext(w.current().rank(), 0, w.current().size(), 1,
                    w.broadcaster(), new InMemoryHostUpdateSource(), new NodeStateStore(Path.of(args[0], "h" + id),
                            "j"));
            Optional<ElasticContext> after = w.change(before, new ElasticMessage.ChangeWorld(1, List.of(),
                    List.of(), launch.size(), activate));
            if (after.isEmpty()) {
                System.out.println("id " + id + " change refused");
            }
        }
        sum(w, id);
        System.out.flush();
        w.leave(1, ElasticExitCodes.SUCCESS); // the leader dismisses the standby ranks not activated
    }

    /**
     * {@code kill0}: rank 0, the standby ranks' leader, dies (SIGKILL) after the world's first sum; rank 1 shrinks the
     * world and, as its new leader, must still reach the standby ranks (they wait for rank 1 once rank 0 is gone) and
     * dismiss them, or the job would never end.
     */
    private static void leaderDies(ElasticWorld w, int id, String store) {
        sum(w, id);
        if (id == 0) {
            System.out.flush();
            try {
                new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                Thread.sleep(60_000);
            } catch (java.io.IOException | InterruptedException e) {
                throw new IllegalStateException("could not SIGKILL myself", e);
            }
        }
        ElasticContext before = new ElasticContext(w.current().rank(), 0, w.current().size(), 1, w.broadcaster(),
                new InMemoryHostUpdateSource(), new NodeStateStore(Path.of(store, "h" + id), "j"));
        try {
            sum(w, id);
        } catch (RuntimeException failed) {
            System.out.println("id " + id + " shrunk " + w.shrink(before).isPresent());
        }
        sum(w, id);
        System.out.flush();
        w.leave(1, ElasticExitCodes.SUCCESS);
    }

    private static void sum(ElasticWorld w, int id) {
        int[] sum = {1};
        w.current().allreduce(sum, Op.SUM);
        System.out.println("id " + id + " rank " + w.current().rank() + " size " + w.current().size() + " sum "
                + sum[0]);
    }
}
