package org.troika.worker.elastic;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.wire.ElasticMessage;

/**
 * One rank of {@code GrowInPlaceMpiIntegrationTest}: the world is asked to grow by a rank whose program does not
 * exist, so the spawn (rank 0's, {@link ElasticWorld#grow}) fails. Every rank must get the same answer, that the change
 * cannot be made in place (then the driver relaunches), and the world must still work. Prints
 * {@code rank R change refused size S sum X} (X: an allreduce of 1 per rank over {@link ElasticWorld#current()}) or
 * {@code rank R change made size S}. Args: {@code STORE_DIR HOST [MODE]} (the host the spawn asks for; the mode
 * {@code all-spawners}, the default, {@code last-lacks} or {@code first-lacks}: which rank has no spawn command).
 */
public final class FailedSpawnRankMain {
    private FailedSpawnRankMain() {}

    public static void main(String[] args) {
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            int rank = world.rank();
            byte[] program = "/nonexistent/troika-test/no-such-rank-program".getBytes(StandardCharsets.UTF_8);
            RankSpawner nowhere = new RankSpawner(List.of(program), Map.of());
            // without a spawn command, as a rank that joined by a spawn: the last rank, or rank 0 (the one that spawns)
            String mode = args.length > 2 ? args[2] : "all-spawners";
            boolean lacks = switch (mode) {
                case "all-spawners" -> false;
                case "last-lacks" -> rank == world.size() - 1;
                case "first-lacks" -> rank == 0;
                default -> throw new IllegalArgumentException("mode " + mode);
            };
            ElasticWorld w = new ElasticWorld(world, "h" + rank, false, 1, DriverReporter.none(),
                    lacks ? null : nowhere, rank);
            ElasticContext before = new ElasticContext(rank, 0, world.size(), 1, w.broadcaster(),
                    new InMemoryHostUpdateSource(), new NodeStateStore(Path.of(args[0], "h" + rank), "j"));
            String host = args[1];
            Optional<ElasticContext> after = w.change(before, new ElasticMessage.ChangeWorld(1, List.of(),
                    List.of(new ElasticMessage.ChangeWorld.Spawn(host, 1, 0)), world.size()));
            if (after.isPresent()) {
                System.out.println("rank " + rank + " change made size " + after.get().size());
            } else {
                int[] sum = {1};
                w.current().allreduce(sum, Op.SUM);
                System.out.println("rank " + rank + " change refused size " + w.current().size() + " sum " + sum[0]);
            }
            System.out.flush();
        }
        System.exit(0);
    }
}
