package org.troika.launcher.relay;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.troika.common.TroikaEnv;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.timeline.Timeline;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.wire.RelayMessage;

/**
 * The relay of an elastic job's generations: one warm {@link RelaySession} for the whole job (task services outlive
 * generations; hosts join and leave while one runs), opened by the first generation that needs it, and the end-of-job
 * cleanup of every host a generation ran on.
 *
 * <ul>
 *   <li>{@link #hostsChanged}: the usable hosts changed; services start on added ones now (while a generation runs, so
 *       the next one waits for none of them) and stop on those that left and run no launch still going.</li>
 *   <li>{@link #ready}: readies one generation's hosts (the session's files, such as the worker key, and its node-store
 *       announcement reach every host as it is readied) and returns what its launch plans with; the generation's hosts
 *       (and those {@link #readyForAdded} adds to it) keep their services until {@link #ended} says its launch is
 *       over, even after the next generation started (it may start while the previous one's launcher ends).</li>
 *   <li>{@link #close}: Shutdown to every service, then {@code troika-rsh cleanup --job ID} on every remote host any
 *       generation ran on, in parallel, through the job's remote shell (removes its node state store); one line per
 *       host that could not be cleaned.</li>
 * </ul>
 *
 * <p>Thread-safe: the elastic driver's thread reports host changes while a generation's thread readies its launch.
 */
public final class GenerationRelay implements AutoCloseable {
    /** How long the end-of-job cleanup may take per host. */
    static final Duration CLEANUP_TIMEOUT = Duration.ofSeconds(20);

    private final RemoteShell shell;
    private final Path troikaHome;
    private final PrintStream err;
    private final boolean progressInPlace;
    private final Timeline timeline;
    private final String jobId;
    private final Map<String, byte[]> files;
    /** Every host word a generation ran on, in first-use order (the hosts to clean up at the end). */
    private final Set<String> everyHost = new LinkedHashSet<>();
    private List<String> usable = List.of();
    /** The hosts of each generation whose launch is not over yet (readied, {@link #ended} not called), by id. */
    private final java.util.TreeMap<Integer, Set<String>> launched = new java.util.TreeMap<>();
    private RelaySession session;

    /**
     * @param shell the job's remote shell
     * @param troikaHome the installation, or {@code null}
     * @param jobId the elastic job's id: its hosts' node stores are announced and cleaned up under it
     * @param files key material every host's service gets before its first launch (variable name to content)
     * @throws org.troika.common.UsageException for a remote shell that cannot be planned (before any generation)
     */
    public GenerationRelay(RemoteShell shell, Path troikaHome, PrintStream err, boolean progressInPlace,
            Timeline timeline, String jobId, Map<String, byte[]> files) {
        this.shell = shell.check();
        this.troikaHome = troikaHome;
        this.err = err;
        this.progressInPlace = progressInPlace;
        this.timeline = timeline;
        this.jobId = jobId;
        this.files = new LinkedHashMap<>(files);
    }

    /** The hosts that keep (or get) a task service: those of launches still going and the usable ones (pure). */
    static List<String> servedHosts(List<String> usable, Collection<? extends Collection<String>> running) {
        Set<String> all = new LinkedHashSet<>();
        running.forEach(all::addAll);
        all.addAll(usable);
        return List.copyOf(all);
    }

    /** The usable hosts are now {@code hosts}. Returns at once; starts that fail are printed. */
    public void hostsChanged(List<String> hosts) {
        synchronized (this) {
            usable = List.copyOf(hosts);
        }
        retainServed();
    }

    /**
     * The launch of {@code generation} is over (its launcher ended): hosts that neither another launch still going nor
     * the usable set needs lose their services now.
     */
    public void ended(int generation) {
        synchronized (this) {
            if (launched.remove(generation) == null) {
                return;
            }
        }
        retainServed();
    }

    /** Keeps (starts) the services of the usable hosts and of launches still going, and stops the others. */
    private void retainServed() {
        RelaySession s;
        List<String> hosts;
        synchronized (this) {
            s = session;
            hosts = servedHosts(usable, launched.values());
        }
        if (s != null) {
            try {
                s.retain(hosts);
            } catch (RuntimeException e) {
                err.println("troika elastic: cannot start task services for the new hosts: " + e.getMessage());
            }
        }
    }

    /** Records {@code hosts} as used by a generation (cleaned up at the end). */
    public synchronized void used(Collection<String> hosts) {
        everyHost.addAll(hosts);
    }

    /**
     * Readies the relay for one generation over {@code plan} (its settings {@code s}, MPI and environment open the
     * session when it is the first): services for the generation's hosts, the usable ones and those of launches still
     * going, then the generation's own hosts up and provisioned, its agent key open. The generation's hosts keep their
     * services until {@link #ended}{@code (generation)}.
     *
     * @param onHostLost where hosts lost from now on are reported (this generation's)
     * @param onRankEnded where the services' reports of ended rank processes go from now on ({@link
     *     RelayMessage.RankEnded}, with the host word; fault-tolerant generations' ranks only)
     * @throws HostsNotReadyException naming the hosts whose service did not come up; they are stopped
     */
    public RelaySession.Launch ready(int generation, HostPlan plan, RunSettings s, MpiInstall mpi,
            Map<String, String> env, BiConsumer<String, String> onHostLost,
            BiConsumer<String, RelayMessage.RankEnded> onRankEnded)
            throws HostsNotReadyException, IOException, InterruptedException {
        used(plan.hostNames());
        RelaySession r = session(s, mpi, env);
        r.onHostLost(onHostLost);
        r.onRankEnded(onRankEnded);
        List<String> hosts;
        synchronized (this) {
            launched.computeIfAbsent(generation, g -> new LinkedHashSet<>()).addAll(plan.hostNames());
            hosts = servedHosts(usable, launched.values());
        }
        r.retain(hosts);
        RelaySession.Launch l = r.launch(plan, s);
        synchronized (this) {
            launched.get(generation).addAll(l.spares()); // their daemons are the launch's: served until it ends
        }
        return l;
    }

    /**
     * Hands {@code hosts}, where the running launch has daemons, the spawned ranks' exports ({@link
     * #spawnEnvironment}): the spare hosts ({@link RelaySession.Launch#spares}) before their daemons start, a host with
     * ranks before ranks are spawned next to them (its services name the file to every daemon they start, before it
     * exists).
     */
    public void sendSpawnEnvironment(List<String> hosts) throws IOException, InterruptedException {
        RelaySession r;
        byte[] env;
        synchronized (this) {
            r = session;
            env = spawnEnvironment;
        }
        if (r != null && env != null && !hosts.isEmpty()) {
            r.sendFile(hosts, TroikaEnv.SPAWN_ENV_FILE, env);
        }
    }

    /**
     * The exported variables of the running launch's ranks ({@code RankLaunch.spawnEnvironmentFile}), which hosts added
     * to it get before a rank is spawned there ({@link #readyForAdded}); {@code null} for none.
     */
    public synchronized void spawnEnvironment(byte[] content) {
        spawnEnvironment = content == null ? null : content.clone();
    }

    private byte[] spawnEnvironment;

    /**
     * Readies {@code added} hosts for the running generation's growth in place ({@link RelaySession#readyForAdded}):
     * false when there is no relayed launch to grow.
     *
     * @throws HostsNotReadyException naming the added hosts whose service did not come up in time
     */
    public boolean readyForAdded(List<String> added) throws HostsNotReadyException, IOException,
            InterruptedException {
        RelaySession r;
        byte[] env;
        synchronized (this) {
            r = session;
            env = spawnEnvironment;
        }
        if (r == null) {
            return false;
        }
        used(added);
        synchronized (this) {
            if (!launched.isEmpty()) {
                // the running generation is the newest one readied: its launch now has ranks there too
                launched.lastEntry().getValue().addAll(added);
            }
        }
        return r.readyForAdded(added, env);
    }

    /**
     * A generation whose backend starts every rank itself (no daemons to relay): its hosts are recorded for the
     * end-of-job cleanup and nothing is started; the launch plans with {@code s} as it is.
     */
    public RelaySession.Launch unrelayed(HostPlan plan, RunSettings s) {
        used(plan.hostNames());
        return new RelaySession.Launch(s, null, false);
    }

    /** The job's session, opened on the first call with that generation's settings. */
    private RelaySession session(RunSettings s, MpiInstall mpi, Map<String, String> env) throws IOException,
            InterruptedException {
        synchronized (this) {
            if (session != null) {
                return session;
            }
        }
        RelaySession r = RelaySession.open(new RelaySession.Request(s, mpi, shell, env, troikaHome, err,
                progressInPlace, timeline), HostAddresses.remoteHosts(usableNow()), true);
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            r.provideFile(f.getKey(), f.getValue()); // over the authenticated channel, never as a path
        }
        r.announceNodeStore(jobId); // removed by the host itself if this launcher dies
        synchronized (this) {
            session = r;
        }
        return r;
    }

    private synchronized List<String> usableNow() {
        return usable;
    }

    /** Shutdown to every task service, then the cleanup of the remote hosts used whose services did not remove the store. */
    @Override
    public void close() {
        RelaySession s;
        List<String> remote;
        synchronized (this) {
            s = session;
            session = null;
            remote = HostAddresses.remoteHosts(List.copyOf(everyHost));
        }
        if (s != null) {
            s.close();
            // a service that ended at the job's final Shutdown removed the store itself: one remote shell fewer per host
            Set<String> done = s.nodeStoreRemoved();
            remote = remote.stream().filter(h -> !done.contains(h)).toList();
        }
        cleanUp(remote);
    }

    /**
     * {@code troika-rsh cleanup --job ID} on {@code remote} (the hosts whose services did not remove the store at the
     * job's end: lost, left the job earlier, never relayed, or slower than the wait) through the remote shell; reports
     * the hosts it missed.
     */
    private void cleanUp(List<String> remote) {
        if (troikaHome == null || !Files.isExecutable(troikaHome.resolve("bin/troika-rsh")) || remote.isEmpty()) {
            return;
        }
        Map<String, RemoteShell.Ran> ran;
        try {
            ran = shell.runOnAll(remote, RemoteShellCommandBuilder.cleanupWords(troikaHome.resolve("bin/troika-rsh")
                    .toAbsolutePath(), jobId), CLEANUP_TIMEOUT);
        } catch (RuntimeException e) {
            err.println("troika elastic: cannot clean up the hosts: " + e.getMessage());
            return;
        }
        for (String host : remote) {
            RemoteShell.Ran r = ran.get(host);
            int code = r == null ? ProbeResult.TIMED_OUT : r.result().exitCode();
            if (code != 0) {
                err.println("troika elastic: could not clean up host " + host + " ("
                        + (code == ProbeResult.TIMED_OUT ? "no answer within " + CLEANUP_TIMEOUT.toSeconds() + " s"
                                : "exit " + code + ": " + RemoteShell.lastLine(r.result().output()))
                        + "); its /dev/shm/troika-" + jobId + " may be left");
            }
        }
    }
}
