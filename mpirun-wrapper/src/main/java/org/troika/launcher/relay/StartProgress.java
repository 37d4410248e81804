package org.troika.launcher.relay;

/**
 * The line that says where a slow start is (pure): {@code troika: starting (12 s): hosts 812/1000 registered,
 * daemons 640/1000 started, slowest: node0413}. {@link StartProgressReporter} decides when it is printed.
 */
public final class StartProgress {
    private StartProgress() {}

    /**
     * Task services of a launch's hosts.
     *
     * @param total the launch's remote hosts
     * @param up those whose service registered
     * @param slowest the host that has been starting longest, {@code null} when all are up
     */
    public record Hosts(int total, int up, String slowest) {}

    /**
     * Where a start is.
     *
     * @param hosts the task services
     * @param daemons daemons the launch starts through the relay (0: not counted, e.g. plain ssh)
     * @param daemonsStarted daemons whose launch agent reached their host's service
     * @param slowestDaemon a host whose daemon has not started yet, or {@code null}
     */
    public record Snapshot(Hosts hosts, int daemons, int daemonsStarted, String slowestDaemon) {
        /** Whether nothing is left to wait for. */
        public boolean done() {
            return hosts.up() >= hosts.total() && daemonsStarted >= daemons;
        }
    }

    /** The progress line for {@code s}, {@code elapsedMillis} after the start began. */
    public static String line(String prefix, Snapshot s, long elapsedMillis) {
        StringBuilder b = new StringBuilder(prefix).append(": starting (").append(elapsedMillis / 1000).append(" s): hosts ")
                .append(s.hosts().up()).append('/').append(s.hosts().total()).append(" registered");
        if (s.daemons() > 0) {
            b.append(", daemons ").append(s.daemonsStarted()).append('/').append(s.daemons()).append(" started");
        }
        String slowest = s.hosts().slowest() != null ? s.hosts().slowest() : s.slowestDaemon();
        if (slowest != null) {
            b.append(", slowest: ").append(slowest);
        }
        return b.toString();
    }
}
