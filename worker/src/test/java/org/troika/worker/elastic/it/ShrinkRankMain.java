package org.troika.worker.elastic.it;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.Op;
import org.troika.worker.elastic.Elastic;
import org.troika.worker.elastic.ElasticContext;
import org.troika.worker.elastic.ElasticWorld;
import org.troika.worker.elastic.InMemoryHostUpdateSource;
import org.troika.worker.elastic.NodeStateStore;
import org.troika.worker.elastic.ObjectState;

/**
 * One rank of a fault-tolerant job (Open MPI 5 under {@code mpirun --with-ft ulfm}), for
 * {@link ShrinkMpiIntegrationTest} and {@code bench/ulfm.sh}.
 *
 * <p>Args: {@code STORE_BASE JOB LAST_STEP KILLS MIN_NP [STEP_MS]}. KILLS is {@code WORLDRANK@STEP,...} (or
 * {@code -}): that rank SIGKILLs itself during that step, before its allreduce ({@code WORLDRANK@reset}: in its
 * first reset callback, while the other survivors are in the state broadcast). Each step allreduces the step number
 * over {@link ElasticWorld#current()} (and checks the sum against the size) and commits. Prints, with W the rank in
 * the first world: {@code rank W backend=B}, {@code rank W pid=P start first=F size=S}, {@code rank W kill-ms=T} just before a kill,
 * {@code rank W reset size=S}, {@code rank W step=K size=S ms=T} after each commit and at the end
 * {@code rank W pid=P done step=S sum=X size=S code=C}; exits with Elastic.run's code.
 */
public final class ShrinkRankMain {
    /** A kill in the first reset callback: after a shrink, while the others are in the state broadcast. */
    private static final int KILL_IN_RESET = -2;

    private ShrinkRankMain() {}

    public static void main(String[] args) throws Exception {
        Path base = Path.of(args[0]);
        String job = args[1];
        int last = Integer.parseInt(args[2]);
        Map<Integer, Integer> kills = new HashMap<>();
        if (!args[3].equals("-")) {
            for (String k : args[3].split(",")) {
                String[] rs = k.split("@");
                kills.put(Integer.parseInt(rs[0]), rs[1].equals("reset") ? KILL_IN_RESET : Integer.parseInt(rs[1]));
            }
        }
        int minNp = Integer.parseInt(args[4]);
        long stepMs = args.length > 5 ? Long.parseLong(args[5]) : 0;
        long pid = ProcessHandle.current().pid();
        int code;
        try (Mpi mpi = Mpi.init()) {
            Communicator first = Mpi.world();
            int me = first.rank();
            System.out.println("rank " + me + " backend=" + mpi.backend().getClass().getSimpleName());
            String host = "h" + me; // one fake host per rank: each keeps its own store
            ElasticWorld world = ElasticWorld.shrinking(first, host, minNp);
            ElasticContext ctx = new ElasticContext(me, 0, first.size(), 1, world.broadcaster(),
                    new InMemoryHostUpdateSource(), new NodeStateStore(base.resolve(host), job));
            ObjectState state = new ObjectState(ctx, Map.of("step", 0, "sum", 0L));
            state.registerResetCallback(() -> {
                System.out.println("rank " + me + " reset size=" + world.current().size());
                if (kills.getOrDefault(me, -1) == KILL_IN_RESET) {
                    killSelf(me, pid);
                }
            });
            code = Elastic.run(state, world, s -> {
                int from = s.get("step", Integer.class);
                System.out.println("rank " + me + " pid=" + pid + " start first=" + from + " size="
                        + world.current().size());
                for (int step = from + 1; step <= last; step++) {
                    if (kills.getOrDefault(me, -1) == step) {
                        killSelf(me, pid);
                    }
                    if (stepMs > 0) {
                        Thread.sleep(stepMs);
                    }
                    Communicator comm = world.current();
                    long[] v = {step};
                    comm.allreduce(v, Op.SUM);
                    if (v[0] != (long) step * comm.size()) {
                        throw new IllegalStateException("allreduce of step " + step + " gave " + v[0]);
                    }
                    s.set("step", step);
                    s.set("sum", s.get("sum", Long.class) + step);
                    s.commit();
                    System.out.println("rank " + me + " step=" + step + " size=" + comm.size() + " ms="
                            + System.currentTimeMillis());
                }
            });
            System.out.println("rank " + me + " pid=" + pid + " done step=" + state.get("step") + " sum="
                    + state.get("sum") + " size=" + world.current().size() + " code=" + code);
            System.out.flush();
        }
        System.exit(code);
    }

    private static void killSelf(int me, long pid) {
        System.out.println("rank " + me + " kill-ms=" + System.currentTimeMillis());
        System.out.flush();
        try {
            new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
            Thread.sleep(60_000);
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException("could not SIGKILL myself", e);
        }
    }
}
