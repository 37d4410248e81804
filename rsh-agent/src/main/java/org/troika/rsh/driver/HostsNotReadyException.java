package org.troika.rsh.driver;

import java.time.Duration;
import java.util.List;

/** Not every host's task service registered within the start timeout. */
public class HostsNotReadyException extends Exception {
    private static final long serialVersionUID = 1L;
    private final List<String> missing;

    public HostsNotReadyException(List<String> missing, Duration timeout) {
        super("task services did not come up within " + timeout.toSeconds() + " s on: " + abbreviate(missing, SHOWN)
                + " (check that troika is installed there and the remote shell works; raise --start-timeout if slow)");
        this.missing = List.copyOf(missing);
    }

    /** {@code missing} with a message of the caller's (e.g. a remote shell that ended before its service registered). */
    public HostsNotReadyException(List<String> missing, String message) {
        super(message);
        this.missing = List.copyOf(missing);
    }

    /** How many host names a message shows before it abbreviates the rest. */
    public static final int SHOWN = 8;

    /** The first {@code shown} of {@code hosts}, comma-separated, then "and N more" for the rest (pure). */
    public static String abbreviate(List<String> hosts, int shown) {
        if (hosts.size() <= shown) {
            return String.join(", ", hosts);
        }
        return String.join(", ", hosts.subList(0, shown)) + " and " + (hosts.size() - shown) + " more";
    }

    public List<String> missing() {
        return missing;
    }
}
