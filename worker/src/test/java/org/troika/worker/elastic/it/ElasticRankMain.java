package org.troika.worker.elastic.it;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.worker.elastic.Elastic;
import org.troika.worker.elastic.ElasticContext;
import org.troika.worker.elastic.HostChange;
import org.troika.worker.elastic.InMemoryHostUpdateSource;
import org.troika.worker.elastic.MpiStateBroadcaster;
import org.troika.worker.elastic.NodeStateStore;
import org.troika.worker.elastic.ObjectState;

/**
 * One rank of one generation of a real MPI job, for {@link ElasticMpiIntegrationTest}.
 *
 * <p>Args: {@code STORE_BASE JOB GENERATION HOSTS LAST_STEP ANNOUNCE_AT [WEIGHTS]}: HOSTS names the fake host of
 * each rank (comma-separated, in rank order; each fake host has its own store under STORE_BASE); the body adds
 * steps up to LAST_STEP with a commit after each; rank 0 is told "hosts added" just before its commit of step
 * ANNOUNCE_AT (0 = never); WEIGHTS (default 1) is the length of the {@code double[]} carried in the state. Prints
 * {@code rank R first-step-ms=T} (wall clock) when the body starts, and at the end
 * {@code rank R first=F step=S sum=X w=W code=C}; exits with Elastic.run's code. Also used by
 * {@code bench/elastic-relaunch.sh}.
 */
public final class ElasticRankMain {
    private ElasticRankMain() {}

    public static void main(String[] args) throws Exception {
        Path base = Path.of(args[0]);
        String job = args[1];
        int generation = Integer.parseInt(args[2]);
        List<String> hosts = Arrays.asList(args[3].split(","));
        int last = Integer.parseInt(args[4]);
        int announceAt = Integer.parseInt(args[5]);
        int weights = args.length > 6 ? Integer.parseInt(args[6]) : 1;
        int code;
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            int rank = world.rank();
            String host = hosts.get(rank);
            int localRank = (int) hosts.subList(0, rank).stream().filter(host::equals).count();
            InMemoryHostUpdateSource updates = new InMemoryHostUpdateSource();
            ElasticContext ctx = new ElasticContext(rank, localRank, world.size(), generation,
                    MpiStateBroadcaster.over(world), updates, new NodeStateStore(base.resolve(host), job));
            double[] w = new double[weights];
            Arrays.fill(w, rank);
            ObjectState state = new ObjectState(ctx, Map.of("step", 0, "sum", 0L, "w", w));
            state.registerResetCallback(() -> System.out.println("rank " + rank + " reset size=" + world.size()));
            int[] first = {-1};
            code = Elastic.run(state, s -> {
                System.out.println("rank " + rank + " first-step-ms=" + System.currentTimeMillis());
                first[0] = s.get("step", Integer.class);
                for (int step = first[0] + 1; step <= last; step++) {
                    s.set("step", step);
                    s.set("sum", s.get("sum", Long.class) + step);
                    if (rank == 0 && step == announceAt) {
                        updates.announce(new HostChange(System.currentTimeMillis(), true, false));
                    }
                    s.commit();
                }
            });
            System.out.println("rank " + rank + " first=" + first[0] + " step=" + state.get("step") + " sum="
                    + state.get("sum") + " w=" + state.get("w", double[].class)[0] + " code=" + code);
        }
        System.exit(code);
    }
}
