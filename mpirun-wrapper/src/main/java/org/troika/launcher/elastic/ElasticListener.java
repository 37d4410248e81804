package org.troika.launcher.elastic;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.troika.launcher.spi.HostSlots;

/**
 * What the elastic driver reports while it runs. Called on the driver's loop thread; keep implementations quick.
 * Every method has a no-op default.
 */
public interface ElasticListener {
    /** Called at every discovery interval while fewer than min-np slots are usable. */
    default void waitingForSlots(int available, int required, int hosts, Duration waited, Duration timeout) {}

    /** A discovery call failed after the first one; the driver goes on with the last known hosts. */
    default void discoveryFailed(String message) {}

    /** Discovery changed the usable hosts. */
    default void hostsChanged(HostUpdate update, List<HostSlots> hosts) {}

    /**
     * Discovery changed the standby hosts (listed with 0 slots: task services kept ready, no ranks); {@code standby}
     * is the new list, possibly empty.
     */
    default void standbyChanged(List<String> standby) {}

    /** A failed host was blacklisted. */
    default void hostBlacklisted(HostManager.Blacklisting blacklisting, Duration cooldown) {}

    default void generationStarted(Generation generation) {}

    default void generationEnded(Generation generation, GenerationResult result) {}

    /** The running generation changes its world in place (issue 25) from {@code before} to the change's target. */
    default void worldChanging(Generation generation, World before, WorldChange change) {}

    /** How often the printing listener repeats an unchanged waiting line. */
    Duration PROGRESS_EVERY = Duration.ofSeconds(10);

    /**
     * Prints one {@code troika elastic: ...} line per event to {@code out}; a waiting line only when the available
     * slots or hosts change, or {@link #PROGRESS_EVERY} after the last one.
     */
    static ElasticListener printing(PrintStream out) {
        return new ElasticListener() {
            private String lastWait = "";
            private Duration lastWaitAt = Duration.ZERO;

            @Override
            public void waitingForSlots(int available, int required, int hosts, Duration waited, Duration timeout) {
                String what = available + "/" + required + "/" + hosts;
                if (what.equals(lastWait) && waited.minus(lastWaitAt).compareTo(PROGRESS_EVERY) < 0
                        && !waited.isZero()) {
                    return;
                }
                lastWait = what;
                lastWaitAt = waited;
                out.printf("troika elastic: waiting for %d slots (min-np), %d available on %d host(s); %d of %d s%n",
                        required, available, hosts, waited.toSeconds(), timeout.toSeconds());
            }

            @Override
            public void discoveryFailed(String message) {
                out.println("troika elastic: " + message + " (keeping the last known hosts, retrying)");
            }

            @Override
            public void hostsChanged(HostUpdate update, List<HostSlots> hosts) {
                out.println("troika elastic: hosts " + update.name().toLowerCase() + ", now "
                        + hosts.stream().map(HostSlots::toString).collect(Collectors.joining(",")));
            }

            @Override
            public void standbyChanged(List<String> standby) {
                out.println(standby.isEmpty() ? "troika elastic: no standby hosts now"
                        : "troika elastic: standby hosts (task services kept ready, no ranks): "
                                + String.join(",", standby));
            }

            @Override
            public void hostBlacklisted(HostManager.Blacklisting b, Duration cooldown) {
                out.println("troika elastic: blacklisted host " + b.host()
                        + (b.permanent() ? " for the rest of the job" : " for " + cooldown.toSeconds() + " s"));
            }

            @Override
            public void worldChanging(Generation g, World before, WorldChange c) {
                out.println("troika elastic: generation " + g.id() + " changes in place: " + c.describe(before)
                        + "; " + ranksOn(c.target().size()) + c.target().hosts().stream()
                        .map(HostSlots::toString).collect(Collectors.joining(",")));
            }

            @Override
            public void generationStarted(Generation g) {
                out.println("troika elastic: generation " + g.id() + " (" + g.reason().name().toLowerCase()
                        + "): " + ranksOn(g.size()) + g.plan().hostList());
            }
        };
    }

    /** {@code 1 rank on } or {@code N ranks on }. */
    private static String ranksOn(int n) {
        return n + (n == 1 ? " rank on " : " ranks on ");
    }
}
