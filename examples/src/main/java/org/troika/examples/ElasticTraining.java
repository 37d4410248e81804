package org.troika.examples;

import java.util.Locale;
import org.troika.worker.Progress;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.mpi.Communicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.ProcFailedException;
import org.troika.mpi.RevokedException;
import org.troika.worker.RankEnv;
import org.troika.worker.elastic.CollectiveFailure;
import org.troika.worker.elastic.DriverHostUpdateSource;
import org.troika.worker.elastic.Elastic;
import org.troika.worker.elastic.ElasticContext;
import org.troika.worker.elastic.ElasticWorld;
import org.troika.worker.elastic.HostsUpdatedInterrupt;
import org.troika.worker.elastic.NodeStateStore;
import org.troika.worker.elastic.ObjectState;

/**
 * The elastic variant of {@link Training}: SGD steps of the logistic model over the current world, the model and the
 * step number committed every K steps. Rank 0 prints {@code committed step=<n> size=<world>} at every commit (after
 * the commit is stored); when all steps are done every rank prints {@code done steps=<n> model-checksum=<hex>}. Each
 * generation shards the synthetic data over its own world size; under {@code --fault-tolerance shrink} the survivors of
 * a dead rank re-shard over the shrunk world ({@link ElasticWorld}) in the same processes.
 *
 * <pre>troika run --host-discovery-script ./discover --min-np 2 java -cp 'lib/*' org.troika.examples.ElasticTraining
 *     --steps 200 --commit-every 5 [--step-ms 0] [--samples 8192] [--features 16] [--batches 16] [--lr 0.5]</pre>
 *
 * {@code --step-ms} sleeps after each step (for demos and tests that must see the hosts change while it trains).
 * {@code --stall-rank R --stall-step N} makes rank R of the first generation sleep forever before step N, or before the
 * first step past N it runs when it only becomes rank R later, joining the world in place (for the hang watchdog's demo
 * and tests). Every step calls {@code Progress.beat("step N")}, so a hang report says where a rank was.
 */
public final class ElasticTraining {
    private ElasticTraining() {}

    /** The knobs of a run. */
    public record Options(int steps, int commitEvery, long stepMillis, int samples, int features, int batches,
            double learningRate, int stallRank, int stallStep) {
        public static Options parse(String... args) {
            int steps = 100;
            int every = 5;
            long stepMs = 0;
            int samples = 8192;
            int features = 16;
            int batches = 16;
            double lr = 0.5;
            int stallRank = -1;
            int stallStep = 0;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                if (i + 1 >= args.length) {
                    throw new UsageException(flag + " needs a value (or is unknown): see ElasticTraining's usage");
                }
                String v = args[++i];
                try {
                    switch (flag) {
                        case "--steps" -> steps = Integer.parseInt(v);
                        case "--commit-every" -> every = Integer.parseInt(v);
                        case "--step-ms" -> stepMs = Long.parseLong(v);
                        case "--samples" -> samples = Integer.parseInt(v);
                        case "--features" -> features = Integer.parseInt(v);
                        case "--batches" -> batches = Integer.parseInt(v);
                        case "--lr" -> lr = Double.parseDouble(v);
                        case "--stall-rank" -> stallRank = Integer.parseInt(v);
                        case "--stall-step" -> stallStep = Integer.parseInt(v);
                        default -> throw new UsageException("unknown option " + flag + ": use --steps, --commit-every,"
                                + " --step-ms, --samples, --features, --batches, --lr, --stall-rank or --stall-step");
                    }
                } catch (NumberFormatException e) {
                    throw new UsageException(flag + " " + v + " is not a number");
                }
            }
            if (steps < 1 || every < 1 || stepMs < 0 || samples < 1 || features < 1 || batches < 1 || !(lr > 0)) {
                throw new UsageException("--steps, --commit-every, --samples, --features, --batches and --lr must be "
                        + "positive, --step-ms at least 0");
            }
            return new Options(steps, every, stepMs, samples, features, batches, lr, stallRank, stallStep);
        }
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (UsageException e) {
            System.err.println("troika ElasticTraining: " + e.getMessage());
            System.exit(UsageException.EXIT_CODE);
            return;
        }
        int code;
        try (Mpi mpi = Mpi.init()) {
            Communicator world = Mpi.world();
            Map<String, String> env = System.getenv();
            int generation = ElasticContext.generationFrom(env);
            RankEnv re = RankEnv.current();
            // under --fault-tolerance shrink the survivors of a dead rank go on over ElasticWorld.current()
            ElasticWorld ew = ElasticWorld.of(world, re.hostname(), env);
            ElasticContext ctx = new ElasticContext(world.rank(), re.localRank(), world.size(), generation,
                    ew.broadcaster(), DriverHostUpdateSource.fromEnvironment(env, world.rank(),
                            generation), NodeStateStore.fromEnvironment(env));
            code = run(o, ctx, Allreducer.following(ew::current), ew);
        }
        System.exit(code);
    }

    /** One generation of the training; returns the rank's exit code ({@link Elastic#run}). */
    public static int run(Options o, ElasticContext ctx, Allreducer allreducer) throws Exception {
        return run(o, ctx, allreducer, null);
    }

    /**
     * One generation over {@code world} (or {@code null}): with fault tolerance on, the body runs again in the same
     * process after a shrink, with the survivors' rank and size ({@code s.context()}).
     */
    public static int run(Options o, ElasticContext ctx, Allreducer allreducer, ElasticWorld world) throws Exception {
        ObjectState state = new ObjectState(ctx, Map.of("step", 0, "weights", new double[o.features() + 1]));
        return Elastic.run(state, world, s -> {
            int rank = s.context().rank();
            SyntheticData.Shard shard = new SyntheticData(42, o.samples(), o.features()).shard(rank,
                    s.context().size());
            LogisticModel model = new LogisticModel(o.features());
            model.setWeights(s.get("weights", double[].class));
            for (int step = s.get("step", Integer.class) + 1; step <= o.steps(); step++) {
                int b = (step - 1) % o.batches();
                int from = (int) ((long) shard.size() * b / o.batches());
                int to = (int) ((long) shard.size() * (b + 1) / o.batches());
                Progress.beat("step " + step);
                if (rank == o.stallRank() && step >= o.stallStep() && ctx.generation() == 1) {
                    Thread.sleep(Long.MAX_VALUE); // the stuck rank of the hang watchdog's demo
                }
                model.step(shard, from, to, allreducer, o.learningRate());
                if (o.stepMillis() > 0) {
                    Thread.sleep(o.stepMillis());
                }
                if (step % o.commitEvery() == 0 || step == o.steps()) {
                    s.set("weights", model.weights());
                    s.set("step", step);
                    String line = "committed step=" + step + " size=" + s.context().size();
                    try {
                        s.commit();
                    } catch (HostsUpdatedInterrupt | CollectiveFailure | ProcFailedException | RevokedException e) {
                        say(rank, line); // kept before the host-update check that raised it: the next world resumes here
                        throw e;
                    }
                    say(rank, line);
                }
            }
            // every rank: the same model everywhere is the point (after a shrink too)
            System.out.println(String.format(Locale.ROOT, "done steps=%d model-checksum=%s", o.steps(),
                    model.checksum()));
        });
    }

    private static void say(int rank, String line) {
        if (rank == 0) {
            System.out.println(line);
        }
    }
}
