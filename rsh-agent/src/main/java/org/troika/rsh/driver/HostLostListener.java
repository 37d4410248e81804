package org.troika.rsh.driver;

/** Told when a registered host's task service stops answering or disconnects while the job runs. */
@FunctionalInterface
public interface HostLostListener {
    /**
     * Called at most once per host, from a driver thread.
     *
     * @param host the host word as registered
     * @param reason one line: "no heartbeat for 6000 ms", "task service disconnected"
     */
    void hostLost(String host, String reason);
}
