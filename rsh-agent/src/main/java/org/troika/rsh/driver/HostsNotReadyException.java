package org.troika.rsh.driver;

import java.time.Duration;
import java.util.List;

/** Not every host's task service registered within the start timeout. */
public class HostsNotReadyException extends Exception {
    private static final long serialVersionUID = 1L;
    private final List<String> missing;

    public HostsNotReadyException(List<String> missing, Duration timeout) {
        super("task services did not come up within " + timeout.toSeconds() + " s on: " + String.join(", ", missing)
                + " (check that troika is installed there and the remote shell works; raise --start-timeout if slow)");
        this.missing = List.copyOf(missing);
    }

    /** {@code missing} with a message of the caller's (e.g. a remote shell that ended before its service registered). */
    public HostsNotReadyException(List<String> missing, String message) {
        super(message);
        this.missing = List.copyOf(missing);
    }

    public List<String> missing() {
        return missing;
    }
}
