package org.troika.rsh.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.TroikaEnv;
import org.troika.rsh.agent.AgentKey;
import org.troika.rsh.agent.AgentRequest;
import org.troika.rsh.agent.RshMain;
import org.troika.rsh.task.TaskService;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * The launch agent key (issue 11): a driver and two task services that hold the job secret, agents that hold only the
 * derived agent key. The key starts one daemon per host, is refused for anything else, and is spent (refused, files
 * deleted everywhere) once every host's daemon was looked up.
 */
class AgentKeyComponentTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration LIVENESS = Duration.ofSeconds(5);

    @TempDir Path tmp;
    private final Secret job = Secret.generate();
    private final Secret agentKey = AgentKey.derive(job, AgentKey.newLabel());
    private final CountDownLatch spent = new CountDownLatch(1);
    private DriverService driver;
    private TaskService a;
    private TaskService b;

    @BeforeEach
    void start() throws Exception {
        driver = new DriverService(job, InetAddress.getLoopbackAddress(), List.of("hostA", "hostB"), HEARTBEAT,
                LIVENESS, (host, reason) -> { });
        a = task("hostA");
        b = task("hostB");
        driver.awaitHosts(Duration.ofSeconds(30));
        driver.openAgentKey(agentKey, spent::countDown);
    }

    private TaskService task(String host) throws Exception {
        return new TaskService(new TaskService.Config(host, List.of(driver.endpoint()), job, HEARTBEAT, LIVENESS,
                System.getenv(), tmp, agentKey)).start();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
        driver.close();
    }

    private record Run(int code, String out, String err) {}

    private Run agent(Secret s, String host, String... words) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = new HashMap<>();
        env.put(TroikaEnv.SECRET_KEY, s.encode());
        env.put(TroikaEnv.DRIVER_ADDR, driver.endpoint().toString());
        List<String> argv = new ArrayList<>();
        argv.add(host);
        argv.addAll(List.of(words));
        int code = RshMain.relay(AgentRequest.parse(argv), env, new PrintStream(out, true), new PrintStream(err, true));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * The files the services keep in their state directory (the key file, the files the driver sent); a service's
     * private directory for the driver's files may stay while it runs, empty: it names a spawn's file before it exists.
     */
    private List<Path> keyFiles() throws java.io.IOException {
        try (var all = Files.walk(tmp)) {
            return all.filter(Files::isRegularFile)
                    .filter(f -> tmp.relativize(f).getName(0).toString().startsWith("troika-")).toList();
        }
    }

    /** Sends one message straight to {@code to} keyed with {@code key}; returns the reply, or the failure. */
    private static Object straight(List<Endpoint> to, Secret key, RelayMessage m) {
        try (WireChannel<RelayMessage> c = WireChannel.connectAny(to, Protocol.RELAY, key, 10_000)) {
            c.send(m);
            return c.receive();
        } catch (java.io.IOException e) {
            return e;
        }
    }

    @Test
    void theAgentKeyStartsOneDaemonPerHostThenIsSpentEverywhere() throws Exception {
        assertNotEquals(job, agentKey);
        // hostA's daemon: its tree-spawned agents would read the agent key, never the job secret
        Run first = agent(agentKey, "hostA", "env;", "cat", "\"$TROIKA_SECRET_FILE\"");
        assertEquals(0, first.code(), first.toString());
        assertFalse(first.out().contains(job.encode()), "the job secret reached a daemon");
        assertTrue(first.out().contains(agentKey.encode()), first.out());
        Path fileA = Path.of(first.out().lines().filter(l -> l.startsWith(TroikaEnv.SECRET_FILE + "=")).findFirst()
                .orElseThrow().substring(TroikaEnv.SECRET_FILE.length() + 1));
        assertTrue(Files.exists(fileA));

        // a second daemon for hostA: refused by the driver (one lookup per host) and by the service (one Exec)
        assertEquals(RshMain.CONNECTION_FAILED, agent(agentKey, "hostA", "true").code());
        Path marker = tmp.resolve("second-daemon");
        Object again = straight(a.endpoints(), agentKey, new RelayMessage.Exec(99, "touch " + marker));
        assertTrue(again instanceof RelayMessage.Failure || again instanceof java.io.IOException, String.valueOf(again));
        // nothing but Exec at a service, nothing but Lookup at the driver
        assertTrue(straight(b.endpoints(), agentKey, new RelayMessage.Ping("x")) instanceof RelayMessage.Failure);
        Object reg = straight(List.of(driver.endpoint()), agentKey, new RelayMessage.Register("hostC", "h", List.of(),
                List.of()));
        assertTrue(reg instanceof RelayMessage.Failure, String.valueOf(reg));
        assertEquals(1, spent.getCount(), "spent before hostB's daemon was looked up");

        // hostB's daemon, the last: the key is spent, every copy is deleted
        assertEquals(0, agent(agentKey, "hostB", "true").code());
        assertTrue(spent.await(30, TimeUnit.SECONDS), "the driver never reported the key spent");
        assertFalse(driver.agentKeyOpen());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!keyFiles().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(Files.exists(fileA), "hostA kept the agent key file after the key was spent");
        assertEquals(List.of(), keyFiles(), "a task service kept a key file");
        // spent: the driver refuses the key outright, the services refuse it too
        Object late = straight(List.of(driver.endpoint()), agentKey, new RelayMessage.Lookup("hostB"));
        assertTrue(late instanceof java.io.IOException, String.valueOf(late));
        assertTrue(straight(b.endpoints(), agentKey, new RelayMessage.Exec(100, "touch " + marker))
                instanceof java.io.IOException);
        assertFalse(Files.exists(marker), "a refused Exec ran");
        // the job secret still works (the driver's own and the probes' key)
        assertTrue(straight(b.endpoints(), job, new RelayMessage.Ping("driver")) instanceof RelayMessage.Pong);
    }

    /**
     * A warm relay session (issue 14): the services outlive a launch. The next launch's key, opened with
     * AgentKeyOpen at the services and for that launch's hosts at the driver, starts one daemon per host of that launch
     * again, while the previous launch's key opens nothing; a host outside the launch gets no lookup.
     */
    @Test
    void theNextLaunchOfAWarmSessionOpensAFreshKeyForItsOwnHostsOnly() throws Exception {
        assertEquals(0, agent(agentKey, "hostA", "true").code());
        assertEquals(0, agent(agentKey, "hostB", "true").code());
        assertTrue(spent.await(30, TimeUnit.SECONDS), "first launch's key never spent");

        // a third host joins the session but not the next launch
        driver.expect(List.of("hostC"));
        try (TaskService c = task("hostC")) {
            driver.awaitHosts(List.of("hostC"), Duration.ofSeconds(30));
            String label = AgentKey.newLabel();
            Secret next = AgentKey.derive(job, label);
            driver.sendAgentKeyLabel(List.of("hostA", "hostB"), label, Duration.ofSeconds(10));
            CountDownLatch nextSpent = new CountDownLatch(1);
            driver.openAgentKey(next, List.of("hostA", "hostB"), nextSpent::countDown);
            assertTrue(driver.agentKeyOpen());

            // the old key opens nothing any more, at the driver or at a service
            assertEquals(RshMain.CONNECTION_FAILED, agent(agentKey, "hostB", "true").code());
            Path marker = tmp.resolve("old-key-daemon");
            assertTrue(straight(b.endpoints(), agentKey, new RelayMessage.Exec(200, "touch " + marker))
                    instanceof java.io.IOException);
            // the new key: no lookup of a host outside the launch, and hostC's service did not take it
            assertEquals(RshMain.CONNECTION_FAILED, agent(next, "hostC", "true").code());
            assertTrue(straight(c.endpoints(), next, new RelayMessage.Exec(201, "touch " + marker))
                    instanceof java.io.IOException);
            // hostA's daemon of the new launch: its tree-spawned agents would read the new key's file
            Run daemon = agent(next, "hostA", "cat", "\"$TROIKA_SECRET_FILE\"");
            assertEquals(0, daemon.code(), daemon.toString());
            assertTrue(daemon.out().contains(next.encode()), daemon.out());
            assertFalse(daemon.out().contains(job.encode()), "the job secret reached a daemon");
            assertEquals(1, nextSpent.getCount(), "spent before hostB's daemon was looked up");
            assertEquals(0, agent(next, "hostB", "true").code());
            assertTrue(nextSpent.await(30, TimeUnit.SECONDS), "the second launch's key was never spent");
            assertFalse(Files.exists(marker), "a key outside its launch started a command");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!keyFiles().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(List.of(), keyFiles(), "a task service kept the second key's file");
        }
    }

    /** A service started without an agent key refuses to take one: it would hand out the job secret. */
    @Test
    void aServiceWithoutAgentKeysRefusesAnAgentKeyLabel() throws Exception {
        driver.expect(List.of("hostC"));
        try (TaskService c = new TaskService(new TaskService.Config("hostC", List.of(driver.endpoint()), job,
                HEARTBEAT, LIVENESS, System.getenv(), tmp)).start()) {
            driver.awaitHosts(List.of("hostC"), Duration.ofSeconds(30));
            java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                    () -> driver.sendAgentKeyLabel(List.of("hostC"), AgentKey.newLabel(), Duration.ofSeconds(10)));
            assertTrue(e.getMessage().contains("hostC") && e.getMessage().contains("without --agent-label"),
                    e.getMessage());
        }
    }

    /** A released host's service stops without being reported lost; a lost host may register again once expected. */
    @Test
    void aReleasedHostIsNotLostAndALostHostMayComeBack() throws Exception {
        List<String> lostHosts = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (DriverService d = new DriverService(job, InetAddress.getLoopbackAddress(), List.of("h1", "h2"),
                HEARTBEAT, LIVENESS, (host, reason) -> lostHosts.add(host))) {
            TaskService h1 = new TaskService(new TaskService.Config("h1", List.of(d.endpoint()), job, HEARTBEAT,
                    LIVENESS, System.getenv(), tmp, agentKey)).start();
            TaskService h2 = new TaskService(new TaskService.Config("h2", List.of(d.endpoint()), job, HEARTBEAT,
                    LIVENESS, System.getenv(), tmp, agentKey)).start();
            d.awaitHosts(Duration.ofSeconds(30));
            d.release("h1", "host left the job");
            assertEquals("driver: host left the job", h1.awaitStop());
            h2.close(); // h2 vanishes: lost
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!lostHosts.contains("h2") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(List.of("h2"), lostHosts, "only the vanished host is lost, once");
            assertEquals(List.of("h2"), d.expectedHosts());
            assertFalse(d.registered("h2"));
            d.expect(List.of("h2"));
            try (TaskService again = new TaskService(new TaskService.Config("h2", List.of(d.endpoint()), job,
                    HEARTBEAT, LIVENESS, System.getenv(), tmp, agentKey)).start()) {
                d.awaitHosts(List.of("h2"), Duration.ofSeconds(30));
                assertTrue(d.registered("h2"));
            }
        }
    }
}
