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
import java.util.stream.Collectors;
import java.io.OutputStream;
import java.io.PrintStream;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.launcher.relay.HostAddresses;
import org.troika.launcher.relay.NetworkChoice;
import org.troika.launcher.relay.RemoteShell;
import org.troika.launcher.relay.ServiceStart;
import org.troika.launcher.relay.TaskServicePool;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.rsh.driver.NicSelector;
import org.troika.wire.Secret;

/**
 * The per-host part of {@code troika doctor}, all hosts in parallel, every step bounded by the timeout.
 *
 * <ol>
 *   <li>{@code remote-shell}: the remote shell {@code troika run} would use ({@link RemoteShell}: the allocation's
 *       own launcher inside one)
 *       runs a probe script on the host: its clock ({@code clock}: skew against this machine, with the round trip as
 *       the error bound) and the free space of its own /tmp and /dev/shm ({@code disk});</li>
 *   <li>{@code task-service}: troika's task service starts on every reachable host and registers, through the same
 *       {@link TaskServicePool} as the relay; {@code nics}: the addresses it reported;</li>
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

    static List<Check> run(RemoteShell shell, List<String> hosts, Path troikaHome, Map<String, String> env,
            Duration timeout, boolean servicesNeeded) {
        Map<String, List<Check>> byHost = new LinkedHashMap<>();
        List<String> reachable = new ArrayList<>();
        remoteShell(shell, hosts, timeout).forEach((h, cs) -> {
            byHost.put(h, new ArrayList<>(cs));
            if (cs.get(0).verdict() == Check.Verdict.OK) {
                reachable.add(h);
            }
        });
        List<Check> network = new ArrayList<>();
        if (troikaHome == null || !Files.isExecutable(troikaHome.resolve("bin/troika-rsh"))) {
            network.add(Check.skip("task-service", null, "not run from the troika distribution (no bin/troika-rsh)"));
        } else if (!reachable.isEmpty()) {
            services(shell, reachable, troikaHome, env, timeout, servicesNeeded, byHost, network);
        }
        List<Check> out = new ArrayList<>();
        for (String h : hosts) {
            out.addAll(byHost.get(h));
        }
        out.addAll(network);
        return out;
    }

    /**
     * Runs the probe script on every host through the remote shell, in parallel; per host, the first check is the
     * reachability verdict.
     */
    static Map<String, List<Check>> remoteShell(RemoteShell shell, List<String> hosts, Duration timeout) {
        Map<String, List<Check>> out = new LinkedHashMap<>();
        List<String> words = List.of("sh", "-c", PROBE_SCRIPT);
        Map<String, RemoteShell.Ran> ran;
        try {
            ran = shell.runOnAll(hosts, words, timeout);
        } catch (UsageException e) {
            hosts.forEach(h -> out.put(h, List.of(Check.fail("remote-shell", h, e.getMessage(),
                    "fix --remote-shell"))));
            return out;
        }
        for (String host : hosts) {
            RemoteShell.Ran run = ran.get(host);
            ProbeResult r = run == null ? new ProbeResult(ProbeResult.TIMED_OUT, "") : run.result();
            List<String> argv = shell.argv(host, words);
            Long remoteMillis = r.ok() ? epochMillis(r.output()) : null;
            if (remoteMillis == null) {
                String why = r.exitCode() == ProbeResult.TIMED_OUT ? "no answer in " + timeout.toSeconds() + " s"
                        : "exit " + r.exitCode() + ": " + RemoteShell.lastLine(r.output());
                out.put(host, List.of(Check.fail("remote-shell", host, "cannot run a command there (" + why + "): "
                        + String.join(" ", argv.subList(0, argv.size() - 3)) + " ...", shell.howToCheck(host))));
                continue;
            }
            long t0 = run.startedMillis();
            long t1 = run.endedMillis();
            List<Check> cs = new ArrayList<>();
            cs.add(Check.ok("remote-shell", host, "reachable in " + (t1 - t0) + " ms through " + argv.get(0)));
            cs.add(skew(host, remoteMillis - (t0 + t1) / 2, (t1 - t0) / 2));
            Map<String, Long> free = freeBytes(r.output());
            cs.add(Doctor.free("disk", host, "/tmp", free.getOrDefault("/tmp", -1L), Doctor.MIN_TMP_BYTES));
            cs.add(Doctor.free("disk", host, "/dev/shm", free.getOrDefault("/dev/shm", -1L), Doctor.MIN_SHM_BYTES));
            out.put(host, cs);
        }
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

    /**
     * Task services on the reachable hosts, started as {@code troika run} starts them (the job's remote shell, a
     * {@link TaskServicePool}); their NICs, and the common networks.
     */
    private static void services(RemoteShell shell, List<String> hosts, Path troikaHome, Map<String, String> env,
            Duration timeout, boolean needed, Map<String, List<Check>> byHost, List<Check> network) {
        Path troikaRsh = troikaHome.resolve("bin/troika-rsh").toAbsolutePath();
        Path tmp = Path.of(env.getOrDefault("TMPDIR", System.getProperty("java.io.tmpdir")));
        Map<String, StringBuffer> output = new ConcurrentHashMap<>();
        hosts.forEach(h -> output.put(h, new StringBuffer()));
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        TaskServicePool.Config config = TaskServicePool.Config.of("troika doctor", Secret.generate(),
                // one by one: what each host's service printed is reported under that host
                ServiceStart.throughShell(shell, troikaRsh, tmp, h -> output.get(h)::append, null).oneByOne(),
                HostAddresses::routeTo, timeout, quiet).withSeparateSharedHostnames(false);
        try (TaskServicePool pool = TaskServicePool.open(config)) {
            long t0 = System.nanoTime();
            String notReady = null;
            try {
                pool.ready(hosts);
            } catch (HostsNotReadyException e) {
                notReady = e.getMessage(); // reported per host below
            }
            long waited = (System.nanoTime() - t0) / 1_000_000L;
            DriverService driver = pool.driver();
            Map<String, DriverService.HostInfo> up = new LinkedHashMap<>();
            if (driver != null) {
                driver.hosts().stream().filter(i -> pool.state(i.host()) != null && pool.state(i.host()).isUp())
                        .forEach(i -> up.put(i.host(), i));
            }
            Check.Verdict missing = needed ? Check.Verdict.FAIL : Check.Verdict.WARN;
            for (String h : hosts) {
                DriverService.HostInfo info = up.get(h);
                if (info == null) {
                    String said = output.get(h).toString();
                    byHost.get(h).add(new Check("task-service", h, missing, "did not register within "
                            + timeout.toSeconds() + " s: " + (said.isBlank() && notReady != null ? notReady
                                    : RemoteShell.lastLine(said)),
                            "the host must run " + troikaRsh + " (same path on every host) and reach this machine "
                                    + "at " + (driver == null ? "its address" : pool.endpointFor(h))
                                    + " (firewall, routes)"));
                    continue;
                }
                byHost.get(h).add(Check.ok("task-service", h, "started through " + shell.name() + " and registered"
                        + " (all hosts within " + waited + " ms), hostname " + info.hostname()));
                byHost.get(h).add(Check.ok("nics", h, info.nics().stream().filter(n -> !n.loopback())
                        .map(n -> n.ifname() + " " + n.address() + "/" + n.prefixLength())
                        .collect(Collectors.joining(", "))));
            }
            if (up.size() < 2) {
                network.add(Check.skip("networks", null, up.isEmpty() ? "no task service registered"
                        : "one remote host: no common network to choose"));
                return;
            }
            NicSelector.Choice c = NetworkChoice.select(driver, List.copyOf(up.keySet()), timeout);
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
        }
    }
}
