package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.Objects;
import org.troika.launcher.spi.RunSettings;

/**
 * How long the elastic driver waits after one discovery run before it starts the next. Pure.
 *
 * <ul>
 *   <li><b>Fixed</b> ({@code --discovery-interval S}, at least {@link #MINIMUM}): always {@code S}.
 *   <li><b>Adaptive</b> (the default with a discovery script), at least {@link #ADAPTIVE_FLOOR} and at most
 *       {@link #ADAPTIVE_CAP}: {@value #ADAPTIVE_FACTOR} times the CPU the last run cost (the script's processes,
 *       from the driver's children's CPU time) and at least {@value #WALL_FACTOR} times its wall time; where the CPU
 *       is unknown, {@value #ADAPTIVE_FACTOR} times the wall time. A host change is noticed on average half an
 *       interval after it happened. Discovery's CPU stays at most 1/{@value #ADAPTIVE_FACTOR} of the time, and a
 *       script that waits on something else (an inventory query) runs at most a quarter of the time. A cheap script
 *       ({@code cat hosts}: ~22 ms from the JVM on a quiet machine, 40-100 ms on one whose cores the ranks keep busy,
 *       a few ms of CPU) is polled every 250 ms whatever the load; with the wall time alone it was polled every
 *       ~440 ms on a quiet machine and every 1 s on a busy one (a relaunch's host change was seen 0.6-1 s late in
 *       {@code bench/elastic-inplace.sh}). A script costing 50 ms of CPU or more keeps the 1 s cap.
 * </ul>
 * A fixed host list ({@code -H} in elastic mode) runs no script and changes only when a blacklist cooldown ends
 * (whole seconds): it keeps the fixed {@link #FIXED_LIST} interval.
 *
 * @param fixed the pause of a fixed interval, or {@code null} for the adaptive one
 */
public record DiscoveryInterval(Duration fixed) {
    /** The shortest interval that may be given (the settings check it). */
    public static final Duration MINIMUM = RunSettings.Elastic.MIN_DISCOVERY_INTERVAL;
    /** Adaptive: the pause is this many times the last run's CPU (its duration where the CPU is unknown). */
    public static final int ADAPTIVE_FACTOR = 20;
    /** Adaptive: the pause is at least this many times the last run's duration. */
    public static final int WALL_FACTOR = 3;
    /** Adaptive: the shortest pause. */
    public static final Duration ADAPTIVE_FLOOR = Duration.ofMillis(250);
    /** Adaptive: the longest pause (the fixed default before it was adaptive). */
    public static final Duration ADAPTIVE_CAP = Duration.ofSeconds(1);
    /** The interval of a fixed host list. */
    public static final Duration FIXED_LIST = Duration.ofSeconds(1);

    /** Always {@code pause}. */
    public static DiscoveryInterval fixed(Duration pause) {
        return new DiscoveryInterval(Objects.requireNonNull(pause, "pause"));
    }

    /** {@value #ADAPTIVE_FACTOR} times the last run, within [{@link #ADAPTIVE_FLOOR}, {@link #ADAPTIVE_CAP}]. */
    public static DiscoveryInterval adaptive() {
        return new DiscoveryInterval(null);
    }

    /**
     * One discovery run as the driver timed it.
     *
     * @param wall how long it took on the driver's clock
     * @param cpu the CPU its processes used (user and system), or {@code null} when unknown
     */
    public record Run(Duration wall, Duration cpu) {
        public Run {
            Objects.requireNonNull(wall, "wall");
        }
    }

    /**
     * The pause after a discovery run, for a script whose runs take {@code lastRun} of wall time, CPU unknown (zero
     * before any run was timed).
     */
    public Duration after(Duration lastRun) {
        return after(new Run(lastRun, null));
    }

    /** The pause after {@code run} (the driver passes the run of its last few that gives the shortest pause). */
    public Duration after(Run run) {
        if (fixed != null) {
            return fixed;
        }
        long cap = ADAPTIVE_CAP.toMillis();
        long wall = Math.min(Math.max(0, run.wall().toMillis()), cap);
        long ms = run.cpu() == null ? wall * ADAPTIVE_FACTOR
                : Math.max(Math.min(Math.max(0, run.cpu().toMillis()), cap) * ADAPTIVE_FACTOR, wall * WALL_FACTOR);
        return Duration.ofMillis(Math.min(cap, Math.max(ADAPTIVE_FLOOR.toMillis(), ms)));
    }
}
