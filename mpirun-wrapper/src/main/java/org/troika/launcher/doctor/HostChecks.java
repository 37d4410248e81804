package org.troika.launcher.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.common.exec.SystemCommandRunner;
import org.troika.launcher.exec.RelaySession;
import org.troika.launcher.exec.TaskServiceCommandBuilder;
import org.troika.launcher.spi.RunSettings;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.rsh.driver.NicSelector;
import org.troika.rsh.task.NicInventory;
import org.troika.wire.NicAddress;
import org.troika.wire.Secret;

/**
 * The per-host part of {@code troika doctor}, all hosts in parallel, every step bounded by the timeout.
 *
 * <ol>
 *   <li>{@code remote-shell}: the remote shell {@code troika run} would use ({@link TaskServiceCommandBuilder})
 *       runs a probe script on the host: its clock ({@code clock}: skew against this machine, with the round trip as
 *       the error bound) and the free space of its own /tmp and /dev/shm ({@code disk});</li>
 *   <li>{@code task-service}: troika's task service starts on every reachable host and registers with a
 *       {@link DriverService}, as the relay does; {@code nics}: the addresses it reported;</li>
 *   <li>{@code networks}: the services probe each other and {@link NicSelector} picks the common networks, with its
 *       reasons (a host that reaches no peer leaves no network).</li>
 * </ol>
 */
final class HostChecks {
    /** Clock skew above which a host gets a warning (timelines and logs then disagree). */
    static final Duration MAX_SKEW = Duration.ofSeconds(1);
    /** The probe script run through the remote shell: epoch nanoseconds, then one {@code df -Pk} line per directory. */
    static final String PROBE_SCRIPT = "date +%s%N; for d in /tmp /dev/shm; do printf '%s ' \"$d\"; "
            + "df -Pk \"$d\" 2>/dev/null | tail -n 1 || echo missing; done";

    private HostChecks() {}

    static List<Check> run(RunSettings s, List<String> hosts, Path troikaHome, Map<String, String> env,
            Duration timeout, boolean servicesNeeded) {
        Map<String, List<Check>> byHost = new ConcurrentHashMap<>();
        List<String> reachable = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(32, hosts.size()), r -> {
            Thread t = new Thread(r, "troika-doctor-host");
            t.setDaemon(true);
            return t;
        });
        try {
            Map<String, Future<List<Check>>> futures = new LinkedHashMap<>();
            for (String h : hosts) {
                futures.put(h, pool.submit(() -> remoteShell(s, h, env, timeout)));
            }
            for (Map.Entry<String, Future<List<Check>>> e : futures.entrySet()) {
                List<Check> cs;
                try {
                    cs = e.getValue().get();
                } catch (Exception ex) {
                    cs = List.of(Check.fail("remote-shell", e.getKey(), String.valueOf(ex), "see troika doctor --verbose"));
                }
                byHost.put(e.getKey(), new ArrayList<>(cs));
                if (cs.get(0).verdict() == Check.Verdict.OK) {
                    reachable.add(e.getKey());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        List<Check> network = new ArrayList<>();
        if (troikaHome == null || !Files.isExecutable(troikaHome.resolve("bin/troika-rsh"))) {
            network.add(Check.skip("task-service", null, "not run from the troika distribution (no bin/troika-rsh)"));
        } else if (!reachable.isEmpty()) {
            services(s, reachable, troikaHome, env, timeout, servicesNeeded, byHost, network);
        }
        List<Check> out = new ArrayList<>();
        for (String h : hosts) {
            out.addAll(byHost.get(h));
        }
        out.addAll(network);
        return out;
    }

    /** Runs the probe script through the remote shell; the first check is the reachability verdict. */
    static List<Check> remoteShell(RunSettings s, String host, Map<String, String> env, Duration timeout) {
        List<String> argv;
        try {
            argv = TaskServiceCommandBuilder.build(s, host, List.of("sh", "-c", PROBE_SCRIPT));
        } catch (UsageException e) {
            return List.of(Check.fail("remote-shell", host, e.getMessage(), "fix --remote-shell"));
        }
        Map<String, String> shellEnv = new LinkedHashMap<>(env);
        TroikaEnv.stripJobSecret(shellEnv);
        long t0 = System.currentTimeMillis();
        ProbeResult r = new SystemCommandRunner(shellEnv).run(argv, timeout);
        long t1 = System.currentTimeMillis();
        List<Check> out = new ArrayList<>();
        Long remoteMillis = r.ok() ? epochMillis(r.output()) : null;
        if (remoteMillis == null) {
            String why = r.exitCode() == ProbeResult.TIMED_OUT ? "no answer in " + timeout.toSeconds() + " s"
                    : "exit " + r.exitCode() + ": " + Doctor.lastLine(r.output());
            out.add(Check.fail("remote-shell", host, "cannot run a command there (" + why + "): "
                    + String.join(" ", argv.subList(0, argv.size() - 3)) + " ...",
                    s.remoteShell() == null || s.remoteShell().equals("ssh")
                            ? "check that 'ssh " + host + " true' works without a password (keys, host name, -p/-i)"
                            : "check --remote-shell '" + s.remoteShell() + "' by hand for this host"));
            return out;
        }
        out.add(Check.ok("remote-shell", host, "reachable in " + (t1 - t0) + " ms"));
        out.add(skew(host, remoteMillis - (t0 + t1) / 2, (t1 - t0) / 2));
        Map<String, Long> free = freeBytes(r.output());
        out.add(Doctor.free("disk", host, "/tmp", free.getOrDefault("/tmp", -1L), Doctor.MIN_TMP_BYTES));
        out.add(Doctor.free("disk", host, "/dev/shm", free.getOrDefault("/dev/shm", -1L), Doctor.MIN_SHM_BYTES));
        return out;
    }

    static Check skew(String host, long skewMillis, long boundMillis) {
        String detail = "clock " + (skewMillis >= 0 ? "+" : "") + skewMillis + " ms against this machine (+/- "
                + boundMillis + " ms)";
        if (Math.abs(skewMillis) - boundMillis > MAX_SKEW.toMillis()) {
            return Check.warn("clock", host, detail, "synchronise the clocks (chrony/ntpd); timelines and logs of "
                    + "this host are shifted");
        }
        return Check.ok("clock", host, detail);
    }

    /** The first line that is an epoch-nanoseconds number, in milliseconds; {@code null} if none. */
    static Long epochMillis(String output) {
        for (String l : output.lines().toList()) {
            String t = l.strip();
            if (t.matches("[0-9]{16,20}")) {
                return Long.parseLong(t) / 1_000_000L;
            }
        }
        return null;
    }

    /** {@code DIR fs blocks used available capacity mount} lines of the probe script, as free bytes by directory. */
    static Map<String, Long> freeBytes(String output) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String l : output.lines().toList()) {
            String[] w = l.strip().split("\\s+");
            if (w.length >= 7 && (w[0].equals("/tmp") || w[0].equals("/dev/shm")) && w[4].matches("[0-9]{1,18}")) {
                out.put(w[0], Long.parseLong(w[4]) * 1024L);
            }
        }
        return out;
    }

    /** Task services on the reachable hosts, their NICs, and the common networks. */
    private static void services(RunSettings s, List<String> hosts, Path troikaHome, Map<String, String> env,
            Duration timeout, boolean needed, Map<String, List<Check>> byHost, List<Check> network) {
        Path troikaRsh = troikaHome.resolve("bin/troika-rsh").toAbsolutePath();
        Secret secret = Secret.generate();
        Path secretFile = null;
        List<ProcessSupervisor> shells = new ArrayList<>();
        Map<String, StringBuffer> output = new ConcurrentHashMap<>();
        try (DriverService driver = new DriverService(secret, RelaySession.bindAddress(hosts.get(0)), hosts,
                RelaySession.HEARTBEAT, RelaySession.LIVENESS_TIMEOUT, (h, why) -> { })) {
            secretFile = secret.writeToPrivateFile(Path.of(env.getOrDefault("TMPDIR",
                    System.getProperty("java.io.tmpdir"))));
            Map<String, String> shellEnv = new LinkedHashMap<>(env);
            TroikaEnv.stripJobSecret(shellEnv);
            for (String h : hosts) {
                StringBuffer buf = new StringBuffer();
                output.put(h, buf);
                List<String> argv = TaskServiceCommandBuilder.build(s, h,
                        TaskServiceCommandBuilder.serviceWords(troikaRsh, h, driver.endpoint()));
                shells.add(ProcessSupervisor.start(new LaunchPlan(argv, shellEnv),
                        ProcessSupervisor.Options.of(buf::append, buf::append).withStdin(secretFile)));
            }
            long t0 = System.nanoTime();
            try {
                driver.awaitHosts(timeout);
            } catch (HostsNotReadyException e) {
                // reported per host below
            }
            long waited = (System.nanoTime() - t0) / 1_000_000L;
            Map<String, DriverService.HostInfo> up = new LinkedHashMap<>();
            driver.hosts().forEach(i -> up.put(i.host(), i));
            Check.Verdict missing = needed ? Check.Verdict.FAIL : Check.Verdict.WARN;
            for (String h : hosts) {
                DriverService.HostInfo info = up.get(h);
                if (info == null) {
                    byHost.get(h).add(new Check("task-service", h, missing, "did not register within "
                            + timeout.toSeconds() + " s: " + Doctor.lastLine(output.get(h).toString()),
                            "the host must run " + troikaRsh + " (same path on every host) and reach this machine "
                                    + "at " + driver.endpoint() + " (firewall, routes)"));
                    continue;
                }
                byHost.get(h).add(Check.ok("task-service", h, "started and registered (all hosts within " + waited
                        + " ms), hostname " + info.hostname()));
                byHost.get(h).add(Check.ok("nics", h, info.nics().stream().filter(n -> !n.loopback())
                        .map(n -> n.ifname() + " " + n.address() + "/" + n.prefixLength())
                        .collect(Collectors.joining(", "))));
            }
            if (up.size() < 2) {
                network.add(Check.skip("networks", null, up.isEmpty() ? "no task service registered"
                        : "one remote host: no common network to choose"));
                return;
            }
            Map<String, List<NicAddress>> nics = new LinkedHashMap<>();
            up.values().forEach(i -> nics.put(i.host(), i.nics()));
            NicSelector.Choice c = NicSelector.select(nics, driver.probe(Duration.ofSeconds(2),
                    timeout, 16), NicInventory.local());
            String reasons = String.join("; ", c.reasons());
            if (c.empty()) {
                network.add(Check.fail("networks", null, "no network every host can reach: " + reasons,
                        "give the hosts addresses in one subnet they can all route between (check routes and "
                                + "firewalls), or name one with --network-interface"));
            } else {
                network.add(Check.ok("networks", null, "chosen " + String.join(",", c.subnets()) + " ("
                        + reasons + ")"));
            }
        } catch (IOException e) {
            network.add(Check.fail("task-service", null, "cannot start the driver service: " + e.getMessage(),
                    "check that this machine can open a listening socket towards the hosts"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            RelaySession.stopShells(shells);
            if (secretFile != null) {
                org.troika.common.PrivateFiles.deleteTreeQuietly(secretFile.getParent());
            }
        }
    }
}
