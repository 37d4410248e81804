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
 * {@code STORE_DIR ACTIVATE}; {@code STORE_DIR leave0,ACTIVATE} (rank 0 leaves the world in the same change, and ends
 * its process); {@code STORE_DIR kill0} ({@link #leaderDies}), or {@code STORE_DIR kill0,ACTIVATE} (then the
 * survivors make that change).
 */
public final class StandbyRankMain {
    private StandbyRankMain() {}

    public static void main(String[] args) {
        try (Mpi mpi = Mpi.init()) {
            Communicator launch = Mpi.world();
            int id = launch.rank();
            ElasticWorld w = ElasticWorld.of(launch, "h" + id, System.getenv()); // a standby rank waits in here
            String change = args[1];
            if (w.joined()) {
                System.out.println("id " + id + " joined rank " + w.current().rank() + " size " + w.current().size());
            } else {
                sum(w, id);
                if (change.startsWith("kill0")) {
                    leaderDies(w, id, args[0]);
                    change = change.substring("kill0".length()).replaceFirst("^,", "");
                }
                if (!change.isEmpty()) {
                    change(w, launch, id, args[0], change);
                }
            }
            sum(w, id);
            System.out.flush();
            w.leave(1, ElasticExitCodes.SUCCESS); // the leader dismisses the standby ranks not activated
        }
        System.exit(0);
    }

    /** The world makes one change: {@code leave0} makes rank 0 leave, every other entry activates that launch rank. */
    private static void change(ElasticWorld w, Communicator launch, int id, String store, String change) {
        List<Integer> leave = new ArrayList<>();
        List<ElasticMessage.ChangeWorld.Activate> activate = new ArrayList<>();
        for (String a : change.split(",")) {
            if (a.equals("leave0")) {
                leave.add(0);
            } else {
                activate.add(new ElasticMessage.ChangeWorld.Activate("s" + a, Integer.parseInt(a)));
            }
        }
        Optional<ElasticContext> after = w.change(context(w, id, store), new ElasticMessage.ChangeWorld(1, leave,
                List.of(), launch.size(), activate));
        if (after.isEmpty()) {
            System.out.println("id " + id + " change refused");
        }
    }

    private static ElasticContext context(ElasticWorld w, int id, String store) {
        return new ElasticContext(w.current().rank(), 0, w.current().size(), 1, w.broadcaster(),
                new InMemoryHostUpdateSource(), new NodeStateStore(Path.of(store, "h" + id), "j"));
    }

    /**
     * {@code kill0}: rank 0, the standby ranks' leader, dies (SIGKILL) after the world's first sum; rank 1 shrinks the
     * world and, as its new leader, must still reach the standby ranks (they wait for rank 1 once rank 0 is gone) to
     * activate or dismiss them, or the job would never end.
     */
    private static void leaderDies(ElasticWorld w, int id, String store) {
        if (id == 0) {
            System.out.flush();
            try {
                new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
                Thread.sleep(60_000);
            } catch (java.io.IOException | InterruptedException e) {
                throw new IllegalStateException("could not SIGKILL myself", e);
            }
        }
        ElasticContext before = context(w, id, store);
        try {
            sum(w, id);
        } catch (RuntimeException failed) {
            System.out.println("id " + id + " shrunk " + w.shrink(before).isPresent());
        }
        sum(w, id);
    }

    private static void sum(ElasticWorld w, int id) {
        int[] sum = {1};
        w.current().allreduce(sum, Op.SUM);
        System.out.println("id " + id + " rank " + w.current().rank() + " size " + w.current().size() + " sum "
                + sum[0]);
    }
}
