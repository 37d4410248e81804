package org.troika.rsh.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.TroikaEnv;
import org.troika.rsh.agent.AgentRequest;
import org.troika.rsh.agent.RshMain;
import org.troika.rsh.task.TaskService;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/** Driver, two task services and the agent in one JVM over loopback sockets; commands are real /bin/sh processes. */
class RelayComponentTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration LIVENESS = Duration.ofSeconds(5);

    @TempDir Path tmp;
    private final Secret secret = Secret.generate();
    private final BlockingQueue<String> lost = new ArrayBlockingQueue<>(10);
    private DriverService driver;
    private TaskService a;
    private TaskService b;

    @BeforeEach
    void start() throws Exception {
        driver = new DriverService(secret, InetAddress.getLoopbackAddress(), List.of("hostA", "hostB"), HEARTBEAT,
                LIVENESS, (host, reason) -> lost.add(host + ": " + reason));
        a = task("hostA");
        b = task("hostB");
        driver.awaitHosts(Duration.ofSeconds(30));
    }

    private TaskService task(String host) throws Exception {
        return new TaskService(new TaskService.Config(host, List.of(driver.endpoint()), secret, HEARTBEAT, LIVENESS,
                System.getenv(), tmp)).start();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
        driver.close();
    }

    private Map<String, String> agentEnv(Secret s) {
        Map<String, String> env = new HashMap<>();
        env.put(TroikaEnv.SECRET_KEY, s.encode());
        env.put(TroikaEnv.DRIVER_ADDR, driver.endpoint().toString());
        return env;
    }

    private record Run(int code, String out, String err) {}

    private Run agent(Secret s, String host, String... words) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> argv = new java.util.ArrayList<>();
        argv.add(host);
        argv.addAll(List.of(words));
        int code = RshMain.relay(AgentRequest.parse(argv), agentEnv(s), new PrintStream(out, true),
                new PrintStream(err, true));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theAgentRelaysOutputAndExitCodeOfTheRemoteShell() {
        // words as Open MPI passes them: re-parsed by the shell, quotes included
        Run r = agent(secret, "hostB", " echo", "\"a  b\";", "echo", "oops", ">&2;", "exit", "3");
        assertEquals(3, r.code());
        assertEquals("a  b\n", r.out());
        assertEquals("oops\n", r.err());
    }

    @Test
    void commandsGetTheDriverAndASecretFileButNeverTheSecretItself() throws Exception {
        Run r = agent(secret, "hostA", "env");
        assertEquals(0, r.code());
        assertFalse(r.out().contains(TroikaEnv.SECRET_KEY + "="), r.out());
        assertFalse(r.out().contains(secret.encode()), "the secret leaked into the command's environment");
        assertTrue(r.out().contains(TroikaEnv.DRIVER_ADDR + "=" + driver.endpoint()), r.out());
        String file = r.out().lines().filter(l -> l.startsWith(TroikaEnv.SECRET_FILE + "=")).findFirst().orElseThrow()
                .substring(TroikaEnv.SECRET_FILE.length() + 1);
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(Path.of(file))));
        assertEquals(secret, Secret.decode(Files.readString(Path.of(file))));
    }

    @Test
    void commandsGetTheirHostsInterfaceNamesForNccl() throws Exception {
        driver.sendNcclInterfaces(Map.of("hostA", List.of("eth0", "ib0"), "hostB", List.of("ens3")));
        // the control message and the next Exec travel on different connections: wait until it applies
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String a1;
        do {
            a1 = agent(secret, "hostA", "echo", "\"$NCCL_SOCKET_IFNAME\"").out();
        } while (!a1.equals("eth0,ib0\n") && System.nanoTime() < deadline);
        assertEquals("eth0,ib0\n", a1);
        do {
            a1 = agent(secret, "hostB", "echo", "\"$NCCL_SOCKET_IFNAME\"").out();
        } while (!a1.equals("ens3\n") && System.nanoTime() < deadline);
        assertEquals("ens3\n", a1);
    }

    @Test
    void anOpenMpiDaemonIsHandedOverOnceItRunsAndItsAgentExitsZeroWhileItGoesOn() throws Exception {
        Path pid = tmp.resolve("daemon.pid");
        java.io.PrintStream stderr = System.err;
        ByteArrayOutputStream serviceErr = new ByteArrayOutputStream();
        System.setErr(new PrintStream(serviceErr, true));
        try {
            long t0 = System.nanoTime();
            // "--tree-spawn" marks an Open MPI daemon (a shell comment here); it outlives its start window
            Run r = agent(secret, "hostA", "echo", "up;", "echo", "$$", ">", pid.toString() + ";", "sleep", "3;",
                    "echo", "late", ">&2;", "exit", "7", "#", "--tree-spawn");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(0, r.code(), r.err());
            assertEquals("up\n", r.out()); // what it printed within the window reached the agent
            assertTrue(ms < 2_900, "the agent lived as long as its daemon: " + ms + " ms");
            ProcessHandle daemon = ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).orElseThrow();
            assertTrue(daemon.isAlive(), "the handed-over daemon must go on running");
            // the rest of its life is on the task service's stderr: its output and how it ended
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!serviceErr.toString(StandardCharsets.UTF_8).contains("exited with code 7")
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            String log = serviceErr.toString(StandardCharsets.UTF_8);
            assertTrue(log.contains("late\n"), log);
            assertTrue(log.contains("troika-rsh task-service hostA: the MPI daemon of request"), log);
            assertTrue(log.contains("exited with code 7 after its start"), log);
        } finally {
            System.setErr(stderr);
        }
    }

    @Test
    void aHandedOverDaemonEndsWithItsTaskService() throws Exception {
        Path pid = tmp.resolve("daemon.pid");
        Run r = agent(secret, "hostB", "echo", "$$", ">", pid.toString() + ";", "exec", "sleep", "60", "#",
                "--daemonize");
        assertEquals(0, r.code(), r.err());
        ProcessHandle daemon = ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).orElseThrow();
        assertTrue(daemon.isAlive());
        b.close();
        daemon.onExit().get(20, TimeUnit.SECONDS);
        assertFalse(daemon.isAlive(), "a stopped task service leaves no daemon behind");
    }

    @Test
    void anOpenMpiDaemonThatFailsAtOnceReportsItsOutputAndExitCodeLikeSsh() {
        Run r = agent(secret, "hostA", "echo", "orted:", "not", "found", ">&2;", "exit", "127", "#", "--tree-spawn");
        assertEquals(127, r.code());
        assertEquals("orted: not found\n", r.err());
    }

    @Test
    void anUnknownHostFailsLikeSsh() {
        Run r = agent(secret, "nohost", "true");
        assertEquals(RshMain.CONNECTION_FAILED, r.code());
        assertTrue(r.err().contains("nohost"), r.err());
    }

    @Test
    void aWrongSecretRunsNothing() throws Exception {
        Path marker = tmp.resolve("pwned");
        Run r = agent(Secret.generate(), "hostA", "touch", marker.toString());
        assertEquals(RshMain.CONNECTION_FAILED, r.code());
        // also straight at the task service, bypassing the driver
        try (WireChannel<RelayMessage> c = WireChannel.connectAny(a.endpoints(), Protocol.RELAY, Secret.generate(), 10_000)) {
            c.send(new RelayMessage.Exec(1, "touch " + marker));
            assertThrows(java.io.IOException.class, c::receive);
        }
        assertFalse(Files.exists(marker), "a command ran without the job's secret");
    }

    @Test
    void aRequestIdRunsAtMostOnce() throws Exception {
        Path count = tmp.resolve("count");
        String cmd = "echo x >> " + count;
        try (WireChannel<RelayMessage> c = WireChannel.connectAny(a.endpoints(), Protocol.RELAY, secret, 10_000)) {
            c.send(new RelayMessage.Exec(77, cmd));
            assertEquals(new RelayMessage.Exited(0), receiveSkippingHeartbeats(c));
        }
        try (WireChannel<RelayMessage> c = WireChannel.connectAny(a.endpoints(), Protocol.RELAY, secret, 10_000)) {
            c.send(new RelayMessage.Exec(77, cmd));
            assertTrue(receiveSkippingHeartbeats(c) instanceof RelayMessage.Failure);
        }
        assertEquals(List.of("x"), Files.readAllLines(count));
    }

    /** Issue 22: the command line's bytes (not UTF-8, not text in any locale) reach the remote shell exactly. */
    @Test
    void theCommandLineReachesTheShellByteForByte() throws Exception {
        Path out = tmp.resolve("bytes");
        byte[] word = {'h', (byte) 0xc3, (byte) 0xa9, (byte) 0xe9, (byte) 0xff, '\\', 'c'};
        String cmd = "printf %s '" + org.troika.common.exec.NativeText.decode(word) + "' > " + out;
        try (WireChannel<RelayMessage> c = WireChannel.connectAny(a.endpoints(), Protocol.RELAY, secret, 10_000)) {
            c.send(new RelayMessage.Exec(78, cmd));
            assertEquals(new RelayMessage.Exited(0), receiveSkippingHeartbeats(c));
        }
        org.junit.jupiter.api.Assertions.assertArrayEquals(word, Files.readAllBytes(out));
    }

    @Test
    void abortStopsTheCommand() throws Exception {
        try (WireChannel<RelayMessage> c = WireChannel.connectAny(b.endpoints(), Protocol.RELAY, secret, 30_000)) {
            c.send(new RelayMessage.Exec(5, "sleep 600"));
            c.send(new RelayMessage.Abort(5));
            RelayMessage m = receiveSkippingHeartbeats(c);
            // `setsid -w` may report its killed child on stderr before the exit code arrives: output is allowed
            while (m instanceof RelayMessage.Output o && o.stream() == 2) {
                m = receiveSkippingHeartbeats(c);
            }
            assertEquals(new RelayMessage.Exited(143), m);
        }
    }

    @Test
    void aHostWhoseServiceDiesIsReportedByName() throws Exception {
        b.close();
        String report = lost.poll(60, TimeUnit.SECONDS);
        assertTrue(report != null && report.startsWith("hostB: "), String.valueOf(report));
    }

    @Test
    void aStoppingServiceEndsItsCommandsAndTellsTheirAgentsTheExitCode() throws Exception {
        Path pidFile = tmp.resolve("sleep.pid");
        java.util.concurrent.CompletableFuture<Run> run = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> agent(secret, "hostB", "echo $$ > " + pidFile + "; exec sleep 600"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(pidFile) && Files.readString(pidFile).endsWith("\n")) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        b.close();
        Run r = run.get(60, TimeUnit.SECONDS);
        assertEquals(143, r.code(), r.toString());
        // gone, or a zombie waiting for this machine's lazy PID 1 (MEASURED-HERE): not a survivor
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (org.troika.common.exec.ProcessTable.running(pid) && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertFalse(org.troika.common.exec.ProcessTable.running(pid), "the command survived its service");
    }

    @Test
    void taskServicesStopWhenTheDriverCloses() throws Exception {
        driver.close();
        assertTrue(a.awaitStop().startsWith("driver"));
        assertEquals("driver: job finished", b.awaitStop());
    }

    @Test
    void probesFindThePeersAddressesThatAnswerAsThatPeer() throws Exception {
        Map<String, Map<String, List<String>>> probe = driver.probe(Duration.ofSeconds(5), Duration.ofSeconds(60), 16);
        assertEquals(List.of("hostB"), List.copyOf(probe.get("hostA").keySet()));
        assertTrue(probe.get("hostA").get("hostB").contains("127.0.0.1"), probe.toString());
        assertTrue(probe.get("hostB").get("hostA").contains("127.0.0.1"), probe.toString());
    }

    @Test
    void servicesListenOnlyOnTheAddressesTheyAnnounce() throws Exception {
        assertEquals("127.0.0.1", driver.endpoint().address());
        for (TaskService t : List.of(a, b)) {
            assertFalse(t.endpoints().isEmpty());
            for (org.troika.wire.Endpoint e : t.endpoints()) {
                assertFalse(InetAddress.getByName(e.address()).isAnyLocalAddress(), e.toString());
                // a non-loopback listener must not answer on loopback at the same port
                if (!InetAddress.getByName(e.address()).isLoopbackAddress()) {
                    assertThrows(java.io.IOException.class, () -> {
                        try (java.net.Socket s = new java.net.Socket()) {
                            s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), e.port()), 5000);
                        }
                    });
                }
            }
        }
        // and the driver (bound to loopback) is not reachable on this host's other addresses
        for (org.troika.wire.NicAddress n : org.troika.rsh.task.NicInventory.local()) {
            if (!n.loopback()) {
                assertThrows(java.io.IOException.class, () -> {
                    try (java.net.Socket s = new java.net.Socket()) {
                        s.connect(new java.net.InetSocketAddress(n.address(), driver.endpoint().port()), 5000);
                    }
                });
            }
        }
    }

    @Test
    void connectionsThatNeverSendAByteOrTrickleAreClosedWithinSecondsAndTheJobGoesOn() throws Exception {
        // the red team's finding: before the service base, such connections to a task service were never closed
        for (org.troika.wire.Endpoint e : List.of(driver.endpoint(), a.endpoints().get(0))) {
            org.troika.testkit.Flooder.Report r = org.troika.testkit.Flooder.run(
                    new java.net.InetSocketAddress(e.address(), e.port()), 20, 10, Duration.ofSeconds(60), List.of());
            assertEquals(30, r.opened(), r.line());
            assertEquals(0, r.open(), r.line());
            assertTrue(r.maxCloseMillis() < 10_000, r.line());
        }
        assertEquals(0, agent(secret, "hostA", "true").code());
        assertEquals(null, lost.poll(), "a flood must not cost a host");
    }

    private static RelayMessage receiveSkippingHeartbeats(WireChannel<RelayMessage> c) throws Exception {
        while (true) {
            RelayMessage m = c.receive();
            if (!(m instanceof RelayMessage.Heartbeat)) {
                return m;
            }
        }
    }

    @Test
    void keyMaterialFromTheDriverIsWrittenPrivatelyOnEachHostAndNamedToItsCommandsOnly() throws Exception {
        driver.sendPrivateFile("TROIKA_WORKER_SECRET_FILE", "d29ya2VyLWtleQ==".getBytes(StandardCharsets.US_ASCII),
                Duration.ofSeconds(30));
        Run r = agent(secret, "hostA", " cat", "\"$TROIKA_WORKER_SECRET_FILE\";", "echo;", "stat", "-c", "%a",
                "\"$TROIKA_WORKER_SECRET_FILE\";", "echo", "\"$TROIKA_WORKER_SECRET_FILE\"");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals("d29ya2VyLWtleQ==", lines.get(0));
        assertEquals("600", lines.get(1));
        Path file = Path.of(lines.get(2));
        assertTrue(file.startsWith(tmp), file + " is not in the service's private directory");
        // only troika's file variables, never the secret file, never anything else (LD_PRELOAD...)
        IOExceptionAssert.refused(() -> driver.sendPrivateFile("LD_PRELOAD", new byte[] {1}, Duration.ofSeconds(30)));
        IOExceptionAssert.refused(() -> driver.sendPrivateFile(TroikaEnv.SECRET_FILE, new byte[] {1},
                Duration.ofSeconds(30)));
        a.close();
        assertFalse(Files.exists(file), "the key file outlived its task service");
    }

    /**
     * A daemon started before the driver sends the spawned ranks' exports (a host with ranks that an elastic world
     * grows next to later) already names the file, and finds it once the driver sent it: a rank it starts then reads
     * it. Names for files that come later are the service's own directory, nowhere else.
     */
    @Test
    void theSpawnEnvironmentFileIsNamedToCommandsBeforeItIsSent() throws Exception {
        Path named = tmp.resolve("named-before");
        Run before = agent(secret, "hostA", " test", "!", "-e", "\"$TROIKA_SPAWN_ENV_FILE\"", "&&", "printf", "%s",
                "\"$TROIKA_SPAWN_ENV_FILE\"", ">", "'" + named + "'");
        assertEquals(0, before.code(), "named, and not there yet: " + before.err());
        Path file = Path.of(Files.readString(named));
        assertTrue(file.startsWith(tmp), file + " is not in the service's private directory");
        driver.sendPrivateFile(TroikaEnv.SPAWN_ENV_FILE, "A=1\n".getBytes(StandardCharsets.US_ASCII),
                Duration.ofSeconds(30));
        assertEquals("A=1\n", Files.readString(file), "the path a command got before is where it is stored");
        Run after = agent(secret, "hostA", " cat", "\"$TROIKA_SPAWN_ENV_FILE\"");
        assertEquals("A=1\n", after.out());
    }

    /** Assertions on the driver's refusal. */
    private static final class IOExceptionAssert {
        interface Call {
            void run() throws Exception;
        }

        static void refused(Call c) {
            java.io.IOException e = assertThrows(java.io.IOException.class, c::run);
            assertTrue(e.getMessage().startsWith("host hostA did not store ") && e.getMessage().contains("refused"),
                    e.getMessage());
        }
    }
}
