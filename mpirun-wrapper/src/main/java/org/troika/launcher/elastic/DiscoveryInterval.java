package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.Objects;
import org.troika.launcher.spi.RunSettings;

/**
 * How long the elastic driver waits after one discovery run before it starts the next. Pure.
 *
 * <ul>
 *   <li><b>Fixed</b> ({@code --discovery-interval S}, at least {@link #MINIMUM}): always {@code S}.
 *   <li><b>Adaptive</b> (the default with a discovery script): {@value #ADAPTIVE_FACTOR} times the duration of the
 *       last run, at least {@link #ADAPTIVE_FLOOR} and at most {@link #ADAPTIVE_CAP}. A host change is noticed
 *       on average half an interval after it happened, so a cheap script ({@code cat hosts}: ~22 ms from the JVM,
 *       its start and end included) is polled every ~440 ms (about 220 ms to notice instead of 500 ms), while
 *       discovery takes at most 1/({@value #ADAPTIVE_FACTOR}+1) of the time for any script faster than 50 ms; one
 *       that takes 50 ms or more keeps the old 1 s interval.
 * </ul>
 * A fixed host list ({@code -H} in elastic mode) runs no script and changes only when a blacklist cooldown ends
 * (whole seconds): it keeps the fixed {@link #FIXED_LIST} interval.
 *
 * @param fixed the pause of a fixed interval, or {@code null} for the adaptive one
 */
public record DiscoveryInterval(Duration fixed) {
    /** The shortest interval that may be given (the settings check it). */
    public static final Duration MINIMUM = RunSettings.Elastic.MIN_DISCOVERY_INTERVAL;
    /** Adaptive: the pause is this many times the last run's duration. */
    public static final int ADAPTIVE_FACTOR = 20;
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
     * The pause after a discovery run, for a script whose runs take {@code lastRun} (the driver passes the shortest of
     * the last few runs; zero before any run was timed).
     */
    public Duration after(Duration lastRun) {
        if (fixed != null) {
            return fixed;
        }
        long ms = Math.min(Math.max(0, lastRun.toMillis()), ADAPTIVE_CAP.toMillis()) * ADAPTIVE_FACTOR;
        return Duration.ofMillis(Math.min(ADAPTIVE_CAP.toMillis(), Math.max(ADAPTIVE_FLOOR.toMillis(), ms)));
    }
}
