package org.troika.launcher.relay;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.troika.rsh.agent.AgentKey;
import org.troika.rsh.driver.DriverService;
import org.troika.wire.Secret;

/**
 * The launch agent keys of a job ({@link AgentKey}): one label per launch. A service started before a launch gets that
 * launch's label on its command line ({@link #labelFor}); services started for an earlier launch are told the new one
 * ({@code AgentKeyOpen}). Each launch's key is written 0600 for mpirun's agents, opened at the driver for that launch's
 * hosts only, and deleted once every host's daemon was looked up (spent) or when the next launch or {@link #close}
 * replaces it. A host added to the running launch (growth in place) gets a fresh key in the same file, for it alone
 * ({@link #openForAdded}).
 *
 * <p>Thread-safe: the monitor guards the labels and the file, never a wait on the network.
 */
public final class AgentKeyRotation implements AutoCloseable {
    private final Secret jobSecret;
    private final Path tmp;
    private final Duration timeout;
    /** The label each host's current service accepts. */
    private final Map<String, String> labels = new ConcurrentHashMap<>();
    private String nextLabel = AgentKey.newLabel();
    private Path keyFile;

    /**
     * @param tmp where the key files are written
     * @param timeout how long services may take to confirm a new label
     */
    public AgentKeyRotation(Secret jobSecret, Path tmp, Duration timeout) {
        this.jobSecret = jobSecret;
        this.tmp = tmp;
        this.timeout = timeout;
    }

    /**
     * The next launch's label, for services started by others (Spark's tasks); the pool records it per host through
     * {@link #labelFor} when it expects them.
     */
    public synchronized String nextLabel() {
        return nextLabel;
    }

    /** The label a service started now for {@code host} gets (the next launch's), recorded as that host's. */
    public synchronized String labelFor(String host) {
        labels.put(host, nextLabel);
        return nextLabel;
    }

    /**
     * Opens a fresh key for one launch over {@code hosts} (all registered at {@code driver}): tells the services that
     * hold another label this one, writes the key file and opens the key at the driver for one lookup per host.
     *
     * @return the key file for mpirun's agents ({@code TROIKA_SECRET_FILE})
     * @throws IOException naming a host that did not confirm the label in time
     */
    public Path open(DriverService driver, List<String> hosts) throws IOException, InterruptedException {
        Secret key = relabel(driver, hosts);
        Path file = key.writeToPrivateFile(tmp);
        synchronized (this) {
            Secret.deleteFile(keyFile); // a previous launch's key, if it was never spent
            keyFile = file;
        }
        driver.openAgentKey(key, hosts, () -> spend(file));
        return file;
    }

    /**
     * Opens a fresh key for hosts added to the running launch (issue 25's growth: a rank's {@code MPI_Comm_spawn} with
     * {@code PMIX_ADD_HOST} makes mpirun start a daemon on each through its agent, which reads the key from the file
     * mpirun's environment names): the key is written into the current launch's key file again, opened at the driver
     * for one lookup per added host, and spent like a launch's. The other hosts' services keep refusing it.
     *
     * @return false when there is no current launch's key file to write into
     * @throws IOException naming a host that did not confirm the label in time
     */
    public boolean openForAdded(DriverService driver, List<String> added) throws IOException, InterruptedException {
        Path file;
        synchronized (this) {
            file = keyFile;
        }
        if (file == null || !java.nio.file.Files.isDirectory(file.getParent())) {
            return false;
        }
        Secret key = relabel(driver, added);
        key.writeTo(file);
        driver.openAgentKey(key, added, () -> spend(file));
        return true;
    }

    /** The next label, made the one {@code hosts}' services accept, and its key. */
    private Secret relabel(DriverService driver, List<String> hosts) throws IOException, InterruptedException {
        String label;
        synchronized (this) {
            label = nextLabel;
            nextLabel = AgentKey.newLabel();
        }
        List<String> stale = hosts.stream().filter(h -> !label.equals(labels.get(h))).toList();
        driver.sendAgentKeyLabel(stale, label, timeout);
        stale.forEach(h -> labels.put(h, label));
        return AgentKey.derive(jobSecret, label);
    }

    /**
     * A spent key: the file is emptied and removed, its private directory stays until the next launch or
     * {@link #close} (a host added to this launch gets its key written there again).
     */
    private static void spend(Path file) {
        Secret.emptyAndUnlink(file);
    }

    /** Deletes the current key file (if not spent yet). */
    @Override
    public synchronized void close() {
        Secret.deleteFile(keyFile);
        keyFile = null;
    }
}
