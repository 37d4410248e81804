package org.troika.launcher.elastic;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.elastic.GenerationLauncher.RunningGeneration;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;

/**
 * Runs an elastic job as a sequence of generations.
 *
 * <pre>
 *  discover (first failure ends the job) ─► wait for min-np slots (progress, elastic timeout)
 *        ▲                                            │ plan: hosts oldest first, world = min(slots, max-np)
 *        │                                            ▼
 *  decide ◄── generation ends ◄── watch: every interval discover; a change ─► announce to the ranks
 *    any rank exit 0                     → done (exit 0)
 *    the launch itself failed            → stop
 *    failures → blacklist their hosts; every host of the generation failed → stop with the first failure
 *    reset limit reached                 → stop
 *    else                                → next generation
 * </pre>
 *
 * <p>The committed state lives on the hosts of the last generation whose ranks got through the start-up sync
 * ("holders"). A new plan puts holders first (oldest first among them) so rank 0 can broadcast the state; if no
 * holder survives the job stops, because the state cannot reach the new ranks.
 *
 * <p>Single-threaded: {@link #run()} does all the work on the caller's thread, sleeping through the injected
 * {@link Clock}.
 */
public final class ElasticDriver {
    /** Exit code for failures the driver detects itself (timeouts, discovery, lost state). */
    public static final int EXIT_DRIVER_FAILURE = 1;

    private final ElasticLimits limits;
    private final HostDiscovery discovery;
    private final HostManager hosts;
    private final GenerationLauncher launcher;
    private final Clock clock;
    private final ElasticListener listener;

    private int generations;
    private int resets;
    /** The standby hosts of the last discovery (listed with 0 slots): services kept ready, no ranks. */
    private List<String> standby = List.of();
    /**
     * The last {@value #RECENT_RUNS} discovery runs (wall time, and CPU where the clock knows it). The adaptive interval
     * follows the run that gives the shortest pause: that is the script's own cost, while a slower run mostly waited
     * for a busy CPU (ranks computing on the launcher's cores), which polling less often would not relieve.
     */
    private final java.util.ArrayDeque<DiscoveryInterval.Run> recentDiscoveries = new java.util.ArrayDeque<>();
    static final int RECENT_RUNS = 8;

    public ElasticDriver(ElasticLimits limits, HostDiscovery discovery, HostManager hosts,
            GenerationLauncher launcher, Clock clock, ElasticListener listener) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.launcher = Objects.requireNonNull(launcher, "launcher");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * The driver of an elastic {@code settings} with the real clock, jittered cooldowns, {@code discovery} (see
     * {@link HostDiscovery#forSettings}) and {@code listener} (e.g. {@link ElasticListener#printing}).
     */
    public static ElasticDriver forSettings(RunSettings settings, HostDiscovery discovery, GenerationLauncher launcher,
            ElasticListener listener) {
        ElasticLimits limits = ElasticLimits.from(settings);
        Clock clock = Clock.system();
        HostManager hosts = new HostManager(clock, limits.cooldown(), () -> ThreadLocalRandom.current().nextDouble());
        return new ElasticDriver(limits, discovery, hosts, launcher, clock, listener);
    }

    /** Thrown inside the loop to end the job with a result. */
    private static final class Stop extends Exception {
        private static final long serialVersionUID = 1L;
        private final int exitCode;

        Stop(int exitCode, String message) {
            super(message, null, false, false);
            this.exitCode = exitCode;
        }
    }

    /**
     * Runs the job to its end. Call once.
     *
     * @throws InterruptedException if the calling thread is interrupted (the caller tears the launch down)
     */
    public ElasticResult run() throws InterruptedException {
        try {
            loop();
            throw new AssertionError("the elastic loop only ends by Stop");
        } catch (Stop s) {
            return new ElasticResult(s.exitCode, s.getMessage(), generations, resets);
        }
    }

    private void loop() throws InterruptedException, Stop {
        try {
            changed(discover());
        } catch (HostDiscoveryException e) {
            throw new Stop(EXIT_DRIVER_FAILURE, e.getMessage());
        }
        Generation.Reason reason = Generation.Reason.START;
        Set<String> holders = Set.of();
        while (true) {
            Generation gen = new Generation(generations + 1, reason, waitForPlan(holders));
            generations++;
            launcher.hostsChanged(servedNames()); // blacklisting since the last discovery changed them too
            listener.generationStarted(gen);
            GenerationResult result = watch(gen, launcher.launch(gen));
            listener.generationEnded(gen, result);
            if (result.rendezvousReached()) {
                holders = new HashSet<>(result.holders() != null ? result.holders() : gen.hostNames());
            }
            reason = decide(gen, result);
        }
    }

    /** What follows a generation: the next generation's reason, or a Stop. */
    private Generation.Reason decide(Generation gen, GenerationResult result) throws Stop {
        if (result.anySuccess()) {
            throw new Stop(0, "done after " + generations + " generation(s) and " + resets + " reset(s)");
        }
        if (result.launchError() != null || result.exits().isEmpty()) {
            // nothing to blacklist and nothing a retry would change: relaunching would loop until the reset limit
            throw new Stop(EXIT_DRIVER_FAILURE, "generation " + gen.id() + " could not be launched: "
                    + (result.launchError() != null ? result.launchError() : "no rank reported an exit"));
        }
        List<RankExit> failures = result.failures();
        RankExit first = failures.isEmpty() ? null : failures.get(0);
        for (RankExit f : failures) {
            hosts.blacklist(f.host()).ifPresent(b -> listener.hostBlacklisted(b,
                    Duration.ofMillis(b.permanent() ? Long.MAX_VALUE : b.untilMillis() - clock.millis())));
        }
        List<String> last = result.holders() != null ? result.holders() : gen.hostNames();
        if (first != null && last.stream().allMatch(hosts::isBlacklisted)) {
            throw new Stop(first.exitCode(), "every host of generation " + gen.id() + " failed ("
                    + String.join(",", last) + "); first failure: " + first.describe());
        }
        if (limits.resetLimit() != null && resets >= limits.resetLimit()) {
            throw new Stop(first != null ? first.exitCode() : EXIT_DRIVER_FAILURE, "reset limit of "
                    + limits.resetLimit() + " reached after generation " + gen.id()
                    + (first != null ? "; last failure: " + first.describe() : "")
                    + "; raise --reset-limit to allow more");
        }
        resets++;
        return result.allHostsUpdated() ? Generation.Reason.HOSTS_UPDATED : Generation.Reason.FAILURE;
    }

    /** Waits (polling discovery) until min-np slots are usable and returns the next generation's plan. */
    private HostPlan waitForPlan(Set<String> holders) throws InterruptedException, Stop {
        long start = clock.millis();
        while (true) {
            List<HostSlots> usable = hosts.current();
            int available = hosts.availableSlots();
            int np = limits.worldSize(available);
            if (np > 0) {
                return plan(usable, holders, np);
            }
            Duration waited = Duration.ofMillis(clock.millis() - start);
            if (waited.compareTo(limits.elasticTimeout()) >= 0) {
                throw new Stop(EXIT_DRIVER_FAILURE, "timed out after " + limits.elasticTimeout().toSeconds()
                        + " s waiting for " + limits.minNp() + " slots (--min-np): " + available
                        + " available on " + usable.size() + " host(s) [" + hostList(usable)
                        + "]; add hosts or raise --elastic-timeout");
            }
            listener.waitingForSlots(available, limits.minNp(), usable.size(), waited, limits.elasticTimeout());
            clock.sleep(nextPoll());
            poll();
        }
    }

    /** Holders of the committed state first (each group oldest first), then assign {@code np} ranks. */
    private HostPlan plan(List<HostSlots> usable, Set<String> holders, int np) throws Stop {
        List<HostSlots> ordered = new ArrayList<>();
        List<HostSlots> others = new ArrayList<>();
        for (HostSlots h : usable) {
            (holders.contains(h.name()) ? ordered : others).add(h);
        }
        if (!holders.isEmpty() && ordered.isEmpty()) {
            throw new Stop(EXIT_DRIVER_FAILURE, "no host of the last synced generation survives ("
                    + holders.stream().sorted().collect(Collectors.joining(",")) + " are gone), so the committed"
                    + " state cannot reach the new ranks [" + hostList(usable) + "]; keep one old host in discovery");
        }
        ordered.addAll(others);
        return HostPlan.assign("elastic generation " + (generations + 1), ordered, np);
    }

    /**
     * Waits for the generation to end, polling discovery each interval. A change of the would-be plan is made in place
     * where the generation can ({@link World#toward}, {@link RunningGeneration#changeInPlace}: ranks of hosts that left
     * leave, new hosts get ranks spawned), else announced to the ranks, who then leave together (after an announcement
     * nothing more is changed in place: the generation is ending).
     */
    private GenerationResult watch(Generation gen, RunningGeneration running) throws InterruptedException {
        List<HostSlots> announced = gen.plan().hosts();
        World world = World.of(gen.plan());
        boolean ending = false;
        while (true) {
            var result = running.awaitEnd(nextPoll());
            if (result.isPresent()) {
                GenerationResult r = result.get();
                // after a change in place the world's hosts hold the last commit, not the plan's
                return r.holders() != null || world.equals(World.of(gen.plan())) ? r
                        : r.withHolders(world.hostNames());
            }
            HostUpdate update = poll();
            if (update == HostUpdate.NONE) {
                continue;
            }
            int np = limits.worldSize(hosts.availableSlots());
            List<HostSlots> wouldBe = np == 0 ? List.of() : HostPlan.assign("next", hosts.current(), np).hosts();
            if (wouldBe.equals(announced)) {
                continue;
            }
            announced = wouldBe;
            // a change in place is a reset like a relaunch: at the reset limit the generation ends and decide() stops
            boolean canReset = limits.resetLimit() == null || resets < limits.resetLimit();
            Optional<WorldChange> change = ending || !canReset ? Optional.empty()
                    : world.toward(wouldBe, running.inPlace(), running.standbyRanks());
            if (change.isPresent() && change.get().isEmpty()) {
                continue; // the same ranks per host in another order: nothing to change
            }
            if (change.isPresent() && running.changeInPlace(change.get())) {
                listener.worldChanging(gen, world, change.get());
                world = change.get().target();
                resets++;
                continue;
            }
            running.announce(update);
            ending = true;
        }
    }

    /** One discovery after the first: failures are reported and leave the hosts as they were. */
    private HostUpdate poll() {
        try {
            return changed(discover());
        } catch (HostDiscoveryException e) {
            listener.discoveryFailed(e.getMessage());
            return HostUpdate.NONE;
        }
    }

    /**
     * Runs discovery once and times it: its wall time, and its CPU as the difference of the driver's children's CPU
     * around it (the script's processes end within the call; another child ending meanwhile, such as an mpirun, makes
     * one run look expensive, which the shortest pause of the last runs leaves out).
     */
    private HostDiscovery.Found discover() throws HostDiscoveryException {
        long start = clock.millis();
        long cpuBefore = clock.childCpuMillis();
        try {
            return discovery.discoverAll();
        } finally {
            long cpuAfter = clock.childCpuMillis();
            if (recentDiscoveries.size() == RECENT_RUNS) {
                recentDiscoveries.removeFirst();
            }
            recentDiscoveries.addLast(new DiscoveryInterval.Run(Duration.ofMillis(clock.millis() - start),
                    cpuBefore < 0 || cpuAfter < cpuBefore ? null : Duration.ofMillis(cpuAfter - cpuBefore)));
        }
    }

    /** The pause until the next discovery run, counted from the end of the last one. */
    private Duration nextPoll() {
        DiscoveryInterval interval = limits.discoveryInterval();
        return recentDiscoveries.stream().map(interval::after).min(Duration::compareTo)
                .orElse(interval.after(Duration.ZERO));
    }

    /**
     * Takes one discovery's answer: updates the usable hosts and the standby ones, tells the listener, and gives the
     * launcher the hosts to keep services for when either changed.
     */
    private HostUpdate changed(HostDiscovery.Found found) {
        HostUpdate update = hosts.update(found.hosts());
        List<String> nowStandby = found.standby();
        boolean standbyChanged = !nowStandby.equals(standby);
        standby = nowStandby;
        if (update != HostUpdate.NONE) {
            listener.hostsChanged(update, hosts.current());
        }
        if (standbyChanged) {
            listener.standbyChanged(standby);
            launcher.standbyChanged(standby);
        }
        if (update != HostUpdate.NONE || standbyChanged) {
            launcher.hostsChanged(servedNames());
        }
        return update;
    }

    /**
     * The hosts whose task services the launcher keeps ready: the usable ones, then the standby ones (discovery's
     * {@code host:0}) that are not blacklisted.
     */
    private List<String> servedNames() {
        List<String> names = new ArrayList<>(hosts.current().stream().map(HostSlots::name).toList());
        for (String h : standby) {
            if (!hosts.isBlacklisted(h)) {
                names.add(h);
            }
        }
        return names;
    }

    private static String hostList(List<HostSlots> hs) {
        return hs.stream().map(HostSlots::toString).collect(Collectors.joining(","));
    }
}
