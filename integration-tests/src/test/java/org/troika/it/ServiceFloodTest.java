package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.CPrograms;
import org.troika.testkit.Dist;
import org.troika.testkit.Flooder;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.ProcStats;
import org.troika.testkit.Requires;

/**
 * The red team's floods against a running relay job over three namespace hosts: from a fourth namespace host with ten
 * addresses, 500 connections that never send a byte and 400 that announce a 1 MiB body and trickle it, at the driver
 * service (in {@code troika run}'s JVM) and at one host's task service at once. Every flood connection must be closed
 * within 10 s, both JVMs must stay under 150 MB RSS with thread and descriptor counts bounded during the flood and back
 * to their level afterwards, a command relayed through both services during the flood must run, and the job must end
 * normally. Prints one {@code service-flood} line per service ({@code bench/service-flood.sh} collects them).
 */
@Tag("integration")
class ServiceFloodTest {
    static final long RSS_LIMIT_MB = 150;
    static final long CLOSE_LIMIT_MS = 10_000;

    @TempDir
    static Path bin;
    @TempDir
    Path tmp;

    @BeforeAll
    static void compile() throws Exception {
        CPrograms.compile(bin, "hello", RelayRunTest.HELLO_C);
    }

    /** A listening TCP socket as {@code ss -ltnp} shows it. */
    record Listener(String address, int port, long pid, String command) {
        String target() {
            return address + ":" + port;
        }
    }

    @Test
    void floodsOfSilentAndSlowBodyConnectionsNeitherGrowNorStallTheServicesOfARunningJob() throws Exception {
        Requires.root();
        Requires.command("unshare");
        Requires.command("ss");
        String secret = java.util.Base64.getEncoder().encodeToString("service-flood-test-secret-012345".getBytes());
        // The job stays on shared-file hosts (`ip netns exec`, the test's own C program from its temp folder): the test
        // measures the services' memory, threads and sockets under a flood; nothing it checks depends on what the
        // hosts share, and the share-nothing paths of the same relay job are covered by RelayRunTest.
        // the attacker runs Flooder on its (share-nothing) host: its class path must be visible there too, also when
        // the checkout lies under /tmp, as CI's may
        List<Path> shared = new ArrayList<>(List.of(Dist.home(), flooderClassPath()));
        try (NetnsCluster c = NetnsCluster.create("wfl", 180, 4, shared)) {
            List<NetnsCluster.Host> job = c.hosts().subList(0, 3);
            NetnsCluster.Host attacker = c.hosts().get(3);
            List<String> sources = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String a = "10.180.0." + (100 + i);
                run(List.of("ip", "-n", attacker.netns(), "addr", "add", a + "/24", "dev", attacker.ifname()));
                sources.add(a);
            }
            String hosts = String.join(",", job.stream().map(h -> h.address() + ":1").toList());
            try (RunSupport troika = RunSupport.start(tmp, Map.of("TROIKA_SECRET_KEY", secret), "-np", "3", "-H", hosts,
                    "--remote-shell", "ip netns exec {host}", bin.resolve("hello").toString(), "45")) {
                troika.awaitOut(o -> o.lines().filter(l -> l.contains("rank ")).count() == 3, "three ranks running");
                NetnsCluster.Host victim = job.get(0);
                List<Listener> root = listeners(List.of());
                Listener driver = root.stream()
                        .filter(l -> l.pid() == troika.pid() && l.address().equals(c.bridgeAddress())).findFirst()
                        .orElseThrow(() -> new AssertionError("troika (pid " + troika.pid()
                                + ") has no driver service listening on " + c.bridgeAddress() + ": " + root));
                Listener task = listeners(c.execPrefix(victim)).stream()
                        .filter(l -> l.command().equals("java") && l.address().equals(victim.address())).findFirst()
                        .orElseThrow(() -> new AssertionError("no task service listening on " + victim.address()));
                ProcStats driverBefore = ProcStats.of(driver.pid());
                ProcStats taskBefore = ProcStats.of(task.pid());

                Process floodDriver = flooder(c.execPrefix(attacker), driver, sources);
                Process floodTask = flooder(c.execPrefix(attacker), task, sources);
                AtomicReference<ProcStats> driverDuring = new AtomicReference<>(driverBefore);
                AtomicReference<ProcStats> taskDuring = new AtomicReference<>(taskBefore);
                Thread sampler = new Thread(() -> {
                    while (floodDriver.isAlive() || floodTask.isAlive()) {
                        try {
                            driverDuring.accumulateAndGet(ProcStats.of(driver.pid()), ProcStats::max);
                            taskDuring.accumulateAndGet(ProcStats.of(task.pid()), ProcStats::max);
                            Thread.sleep(50);
                        } catch (IOException | InterruptedException e) {
                            return;
                        }
                    }
                });
                sampler.start();
                // an authenticated command through both flooded services (Lookup at the driver, Exec at the task service)
                Output agent = run(List.of(Dist.home().resolve("bin/troika-rsh").toString(), victim.address(), "echo",
                        "relayed-during-flood"), Map.of("TROIKA_SECRET_KEY", secret, "TROIKA_DRIVER_ADDR",
                        driver.target()));
                Flooder.Report driverFlood = report(floodDriver);
                Flooder.Report taskFlood = report(floodTask);
                sampler.join();

                ProcStats driverAfter = settle(driver.pid(), driverBefore);
                ProcStats taskAfter = settle(task.pid(), taskBefore);
                System.out.println(line("driver", driverBefore, driverDuring.get(), driverAfter, driverFlood));
                System.out.println(line("task-service", taskBefore, taskDuring.get(), taskAfter, taskFlood));

                assertEquals(0, agent.code(), agent.toString());
                assertTrue(agent.out().contains("relayed-during-flood"), agent.toString());
                for (Flooder.Report r : List.of(driverFlood, taskFlood)) {
                    assertEquals(900, r.opened(), r.line());
                    assertEquals(0, r.open(), "flood connections left open: " + r.line());
                    assertTrue(r.maxCloseMillis() < CLOSE_LIMIT_MS, r.line());
                }
                for (ProcStats[] s : List.of(new ProcStats[] {driverBefore, driverDuring.get(), driverAfter},
                        new ProcStats[] {taskBefore, taskDuring.get(), taskAfter})) {
                    assertTrue(s[1].rssMb() < RSS_LIMIT_MB, "RSS during the flood: " + s[1]);
                    // no thread per flood connection; descriptors bounded by the pending limit (64) and the agent's
                    assertTrue(s[1].threads() <= s[0].threads() + 8, s[0] + " -> " + s[1]);
                    assertTrue(s[1].fds() <= s[0].fds() + 64 + 8, s[0] + " -> " + s[1]);
                    assertTrue(s[2].threads() <= s[0].threads() + 2 && s[2].fds() <= s[0].fds() + 2,
                            "not back after the flood: " + s[0] + " -> " + s[2]);
                }
                RunSupport.Result r = troika.waitFor();
                troika.assertNoSurvivors();
                assertEquals(0, r.exitCode(), r.toString());
                assertEquals(3, r.outLines().stream().filter(l -> l.contains("sum=3")).count(), r.toString());
            }
        }
    }

    private static String line(String service, ProcStats before, ProcStats during, ProcStats after, Flooder.Report f) {
        return "service-flood " + service + " before: " + before + " | during (max): " + during + " | after: " + after
                + " | flood: " + f.line();
    }

    /** Waits (up to 30 s) until the process is back to at most its earlier threads and descriptors (+2). */
    private static ProcStats settle(long pid, ProcStats before) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        ProcStats now = ProcStats.of(pid);
        while ((now.threads() > before.threads() + 2 || now.fds() > before.fds() + 2) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            now = ProcStats.of(pid);
        }
        return now;
    }

    /** 500 silent and 400 slow-body connections from the attacker's addresses, held at most 30 s. */
    private static Process flooder(List<String> prefix, Listener target, List<String> sources) throws IOException {
        List<String> argv = new ArrayList<>(prefix);
        argv.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                flooderClassPath().toString(),
                Flooder.class.getName(), target.target(), "500", "400", "30"));
        argv.addAll(sources);
        return new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static Path flooderClassPath() {
        return Path.of(Flooder.class.getProtectionDomain().getCodeSource().getLocation().getPath());
    }

    private static Flooder.Report report(Process p) throws IOException, InterruptedException {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "flooder failed: " + out);
        return Flooder.Report.parse(out.lines().reduce((a, b) -> b).orElseThrow());
    }

    /** Listening TCP sockets (in the namespace {@code prefix} enters), from {@code ss -Hltnp}. */
    static List<Listener> listeners(List<String> prefix) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(prefix);
        argv.addAll(List.of("ss", "-Hltnp"));
        List<Listener> out = new ArrayList<>();
        for (String line : run(argv).out().split("\n")) {
            String[] w = line.trim().split("\\s+");
            if (w.length < 6 || !line.contains("pid=")) {
                continue;
            }
            String local = w[3];
            int colon = local.lastIndexOf(':');
            String users = line.substring(line.indexOf("users:"));
            String command = users.substring(users.indexOf("((\"") + 3, users.indexOf("\","));
            long pid = Long.parseLong(users.replaceAll(".*?pid=(\\d+).*", "$1"));
            String address = local.substring(0, colon).replace("[::ffff:", "").replace("[", "").replace("]", "");
            out.add(new Listener(address, Integer.parseInt(local.substring(colon + 1)), pid, command));
        }
        return out;
    }

    record Output(int code, String out, String err) {}

    private static Output run(List<String> argv) throws IOException, InterruptedException {
        return run(argv, Map.of());
    }

    private static Output run(List<String> argv, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().putAll(env);
        Process p = pb.start();
        java.util.concurrent.CompletableFuture<String> err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "did not finish: " + argv);
        return new Output(p.exitValue(), out, err.join());
    }
}
