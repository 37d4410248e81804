package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.rsh.task.TaskService;
import org.troika.wire.Endpoint;
import org.troika.wire.Secret;

/**
 * The pool with real task services in this JVM over loopback (started on their own threads, as a remote shell would
 * start them elsewhere): host states, loss, stop and restart, failed and silent starts, and the driver's listener per
 * route.
 */
@Timeout(120)
class TaskServicePoolTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration LIVENESS = Duration.ofSeconds(2);

    @TempDir
    Path tmp;

    private final Secret secret = Secret.generate();
    private final Map<String, TaskService> services = new ConcurrentHashMap<>();
    /** Where each service was told to register, in start order. */
    private final List<String> told = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final List<TaskServicePool> pools = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        pools.forEach(TaskServicePool::close);
        services.values().forEach(TaskService::close);
    }

    /** Starts an in-JVM task service for the host on its own thread (the pool's monitor is held meanwhile). */
    private ServiceStart inProcess() {
        return (host, driver, label, key) -> {
            told.add(host + "@" + driver);
            Thread t = new Thread(() -> {
                TaskService service = new TaskService(new TaskService.Config(host, List.of(driver), key, HEARTBEAT,
                        LIVENESS, Map.of(), tmp));
                services.put(host, service); // before it registers: the test may look it up as soon as it did
                try {
                    service.start();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            t.setDaemon(true);
            t.start();
            return ServiceStart.Started.ELSEWHERE;
        };
    }

    private TaskServicePool pool(ServiceStart start, TaskServicePool.Route route, Duration startTimeout) {
        TaskServicePool p = TaskServicePool.open(TaskServicePool.Config.of("troika", secret, start, route, startTimeout,
                new PrintStream(errBytes, true, StandardCharsets.UTF_8)).withLiveness(HEARTBEAT, LIVENESS)
                .withSeparateSharedHostnames(false));
        pools.add(p);
        return p;
    }

    private static TaskServicePool.Route loopback() {
        return h -> InetAddress.getLoopbackAddress();
    }

    @Test
    void servicesGoFromStartingToProvisionedAndAStoppedHostStartsAgainAsANewEntry() throws Exception {
        TaskServicePool pool = pool(inProcess(), loopback(), Duration.ofSeconds(30));
        assertNull(pool.state("a"));
        assertEquals(Map.of(), pool.start(List.of("a", "b")));
        assertEquals(HostState.STARTING, pool.state("a"), "registered before its start returned?");
        pool.ready(List.of("a", "b"));
        assertEquals(HostState.PROVISIONED, pool.state("a"));
        assertEquals(HostState.PROVISIONED, pool.state("b"));
        assertEquals(List.of("a", "b"), pool.hosts());
        pool.provideFile("TROIKA_TEST_FILE", "x".getBytes(StandardCharsets.US_ASCII)); // both confirm, or it throws

        pool.stop("b", "host left the job");
        assertEquals(HostState.STOPPED, pool.state("b"));
        assertEquals(List.of("a"), pool.hosts());
        assertTrue(services.get("b").awaitStop().contains("host left the job"));
        assertEquals(Map.of(), pool.start(List.of("a"))); // a is up: not started again
        assertEquals(2, told.size(), told.toString());

        services.remove("b");
        pool.ready(List.of("a", "b")); // b again: a new entry from STARTING, given the file it missed
        assertEquals(HostState.PROVISIONED, pool.state("b"));
        assertEquals(3, told.size(), told.toString());
        assertEquals(List.of("a", "b"), pool.hosts());
        assertTrue(pool.lostHosts().isEmpty(), errBytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aLostHostIsReportedOnceItsStateStaysLostAndAStartGivesItANewService() throws Exception {
        TaskServicePool pool = pool(inProcess(), loopback(), Duration.ofSeconds(30));
        LinkedBlockingQueue<String> lost = new LinkedBlockingQueue<>();
        pool.onHostLost((h, why) -> lost.add(h + ": " + why));
        pool.ready(List.of("a", "b"));
        services.remove("a").close(); // the service vanishes without the driver's Shutdown
        String report = lost.poll(30, TimeUnit.SECONDS);
        assertTrue(report != null && report.startsWith("a: "), String.valueOf(report));
        assertEquals(HostState.LOST, pool.state("a"));
        assertEquals(java.util.Set.of("a"), pool.lostHosts());
        pool.stop("a", "too late"); // refused: LOST is final
        assertEquals(HostState.LOST, pool.state("a"));
        assertTrue(errBytes.toString(StandardCharsets.UTF_8).contains("troika: host a lost: "));

        pool.ready(List.of("a"));
        assertEquals(HostState.PROVISIONED, pool.state("a"));
        assertTrue(pool.lostHosts().isEmpty());
        assertNull(lost.poll(LIVENESS.toMillis() * 2, TimeUnit.MILLISECONDS), "reported again: " + lost);
    }

    /** Issue 21: a host reached through another interface registers at a listener on that interface. */
    @Test
    void eachHostIsToldTheListenerOnItsOwnRouteAndNothingListensOnTheWildcard() throws Exception {
        InetAddress second = InetAddress.getByName("127.0.0.2");
        TaskServicePool pool = pool(inProcess(), h -> h.equals("b") ? second : InetAddress.getLoopbackAddress(),
                Duration.ofSeconds(30));
        pool.ready(List.of("a"));
        pool.ready(List.of("a", "b")); // b joins later, on another route
        assertEquals(HostState.PROVISIONED, pool.state("b"));
        Endpoint first = pool.endpoint();
        assertEquals("127.0.0.1", first.address());
        assertEquals(List.of("a@" + first, "b@" + pool.endpointFor("b")), told);
        assertEquals("127.0.0.2", pool.endpointFor("b").address());
        assertThrows(IOException.class, () -> new java.net.Socket("127.0.0.3", pool.endpointFor("b").port()).close());
    }

    @Test
    void aServiceThatNeverRegistersIsNamedAfterItsStartTimeoutAndStopped() {
        TaskServicePool pool = pool(ServiceStart.elsewhere(), loopback(), Duration.ofSeconds(1));
        long t0 = System.nanoTime();
        HostsNotReadyException e = assertThrows(HostsNotReadyException.class, () -> pool.ready(List.of("x", "y")));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(List.of("x", "y"), e.missing());
        assertTrue(e.getMessage().startsWith("task services did not come up within 1 s on: x, y"), e.getMessage());
        assertTrue(ms >= 900 && ms < 20_000, ms + " ms");
        assertEquals(HostState.STOPPED, pool.state("x"));
        assertEquals(List.of(), pool.hosts());
    }

    @Test
    void aStartThatFailsIsNamedWithItsReasonAndTheOthersStillComeUp() throws Exception {
        ServiceStart real = inProcess();
        TaskServicePool pool = pool((host, driver, label, key) -> {
            if (host.equals("bad")) {
                throw new IOException("no such remote shell");
            }
            return real.start(host, driver, label, key);
        }, loopback(), Duration.ofSeconds(30));
        HostsNotReadyException e = assertThrows(HostsNotReadyException.class, () -> pool.ready(List.of("a", "bad")));
        assertEquals(List.of("bad"), e.missing());
        assertEquals("cannot start the task service of bad: no such remote shell", e.getMessage());
        assertEquals(HostState.STOPPED, pool.state("bad"));
        pool.ready(List.of("a"));
        assertEquals(HostState.PROVISIONED, pool.state("a"));
    }

    /**
     * Each service's start is one timeline span, also for a host whose service registers while nobody waits in
     * {@code ready} (started by discovery while a generation runs): its registration used to throw in the driver's
     * callback (removing from an immutable empty set of awaited hosts) after its state changed, so its span was lost.
     */
    @Test
    void everyRegisteredServiceIsOneTimelineSpanAHostAddedLaterIncluded() throws Exception {
        org.troika.launcher.timeline.Timeline timeline = org.troika.launcher.timeline.Timeline.inMemory();
        TaskServicePool p = TaskServicePool.open(TaskServicePool.Config.of("troika", secret, inProcess(), loopback(),
                Duration.ofSeconds(30), new PrintStream(errBytes, true, StandardCharsets.UTF_8))
                .withLiveness(HEARTBEAT, LIVENESS).withSeparateSharedHostnames(false).withTimeline(timeline));
        pools.add(p);
        p.ready(List.of("a", "b"));
        p.provideFile("TROIKA_TEST_FILE", "x".getBytes(StandardCharsets.US_ASCII));
        p.retain(List.of("a", "b", "c")); // discovery added c while a generation runs on a and b
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (p.state("c") == HostState.STARTING && System.nanoTime() < deadline) {
            Thread.sleep(20); // registered while no ready() waits
        }
        assertEquals(HostState.REGISTERED, p.state("c"));
        p.ready(List.of("a", "b", "c"));
        p.retain(List.of("a", "c")); // b left
        p.ready(List.of("a", "c"));
        List<String> spans = timeline.events().stream().filter(e -> e.name().equals("task service"))
                .map(org.troika.launcher.timeline.Timeline.Event::host).sorted().toList();
        assertEquals(List.of("a", "b", "c"), spans, errBytes.toString(StandardCharsets.UTF_8));
    }
    /**
     * Issue 23: a start that covers many hosts with one process here (one srun step) is asked once for all of a
     * round's hosts; its process is shared: a host of it that never registers is named and stopped without ending the
     * others' services, and the files its process read (the secret, a long host list) are gone once a service
     * registered.
     */
    @Test
    void servicesStartedTogetherShareOneProcessAndAMissingOneDoesNotEndTheOthers() throws Exception {
        ServiceStart single = inProcess();
        List<List<String>> together = new CopyOnWriteArrayList<>();
        List<org.troika.common.exec.ProcessSupervisor> steps = new CopyOnWriteArrayList<>();
        Path secretFile = java.nio.file.Files.createFile(tmp.resolve("secret"));
        Path hostFile = java.nio.file.Files.createFile(tmp.resolve("hosts"));
        ServiceStart step = new ServiceStart() {
            @Override
            public Started start(String host, Endpoint driver, String label, Secret key) throws IOException {
                throw new AssertionError("started " + host + " alone");
            }

            @Override
            public Started startTogether(List<String> hosts, Endpoint driver, String label, Secret key)
                    throws IOException {
                together.add(List.copyOf(hosts));
                for (String h : hosts) {
                    if (!h.equals("never")) { // this host's task fails to start: the step goes on
                        single.start(h, driver, label, key);
                    }
                }
                org.troika.common.exec.ProcessSupervisor p = org.troika.common.exec.ProcessSupervisor.start(
                        new org.troika.common.exec.LaunchPlan(List.of("sleep", "5"), Map.of()), l -> { }, l -> { });
                steps.add(p);
                return new Started(p, secretFile, hostFile, false);
            }
        };
        TaskServicePool pool = pool(step, loopback(), Duration.ofSeconds(2));
        HostsNotReadyException e = assertThrows(HostsNotReadyException.class,
                () -> pool.ready(List.of("a", "b", "never")));
        assertEquals(List.of(List.of("a", "b", "never")), together);
        assertEquals(List.of("never"), e.missing());
        assertEquals(HostState.STOPPED, pool.state("never"));
        assertTrue(pool.state("a").isUp() && pool.state("b").isUp(), pool.state("a") + " " + pool.state("b"));
        assertTrue(steps.get(0).isAlive(), "the step of a and b was ended with the host that never came");
        assertTrue(!java.nio.file.Files.exists(secretFile) && !java.nio.file.Files.exists(hostFile));
        pool.ready(List.of("a", "b"));
        assertEquals(HostState.PROVISIONED, pool.state("b"));
        assertEquals(1, together.size(), "a and b started again: " + together);
    }

    /**
     * Issue 23: hosts started one at a time keep at most {@code startsInFlight} starts that have not registered (a
     * process here each: 10,000 ssh clients at once would be 80 GB); the others wait their turn, which a registration
     * passes on, and so does a shell that ended without one. A host whose start fails after its wait is named by ready,
     * and every other host comes up.
     */
    @Test
    void oneByOneStartsKeepAtMostTheirBoundInFlightAndEveryHostStillComesUp() throws Exception {
        int bound = 4;
        ServiceStart single = inProcess();
        var poolRef = new java.util.concurrent.atomic.AtomicReference<TaskServicePool>();
        List<String> launched = new CopyOnWriteArrayList<>();
        List<Integer> inFlightAtStart = new CopyOnWriteArrayList<>();
        List<org.troika.common.exec.ProcessSupervisor> shells = new CopyOnWriteArrayList<>();
        ServiceStart windowed = (host, driver, label, key) -> {
            if (host.equals("refused")) {
                throw new IOException("no route to refused");
            }
            // starts are made under the pool's monitor: the states read here are the pool's own at this start
            TaskServicePool pool = poolRef.get();
            inFlightAtStart.add((int) launched.stream()
                    .filter(h -> !h.equals("broken") && pool.state(h) == HostState.STARTING).count());
            launched.add(host);
            // the shell lives a second (as ssh until the service detached), or ends at once with 3 (a broken host)
            String code = host.equals("broken") ? "exit 3" : "sleep 1";
            org.troika.common.exec.ProcessSupervisor shell = org.troika.common.exec.ProcessSupervisor.start(
                    new org.troika.common.exec.LaunchPlan(List.of("sh", "-c", code), Map.of()), l -> { }, l -> { });
            shells.add(shell);
            if (!host.equals("broken")) {
                single.start(host, driver, label, key);
            }
            return new ServiceStart.Started(shell, null, null, true);
        };
        TaskServicePool pool = TaskServicePool.open(TaskServicePool.Config.of("troika", secret, windowed, loopback(),
                Duration.ofSeconds(30), new PrintStream(errBytes, true, StandardCharsets.UTF_8))
                .withLiveness(HEARTBEAT, LIVENESS).withSeparateSharedHostnames(false).withStartsInFlight(bound));
        pools.add(pool);
        poolRef.set(pool);
        List<String> hosts = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            hosts.add(i == 1 ? "broken" : i == 30 ? "refused" : String.format("h%02d", i));
        }

        HostsNotReadyException e = assertThrows(HostsNotReadyException.class, () -> pool.ready(hosts));
        assertEquals(List.of("broken", "refused"), e.missing().stream().sorted().toList());
        assertTrue(e.getMessage().contains("broken (exit 3)") && e.getMessage().contains("no route to refused"),
                e.getMessage());
        List<String> up = hosts.stream().filter(h -> pool.state(h) != null && pool.state(h).isUp()).toList();
        assertEquals(38, up.size(), "up: " + up);
        assertEquals(39, launched.size(), launched.toString());
        assertEquals(hosts.stream().filter(h -> !h.equals("refused")).toList(), launched, "not in start order");
        assertTrue(inFlightAtStart.stream().allMatch(n -> n < bound), "over the bound: " + inFlightAtStart);
        assertEquals(bound - 1, inFlightAtStart.stream().mapToInt(Integer::intValue).max().orElse(0),
                "the bound was never reached: " + inFlightAtStart);
    }

    /**
     * Issue 23: a service that detaches from its remote shell (ssh) once registered. Its shell exits 0 then, possibly
     * before the driver's report of the registration reached the pool: that is no failure, and the host is not
     * started again. A shell that exits otherwise before its service registered still fails the host at once. What a
     * detached service prints reaches the launcher over the driver connection, a line at a time, tagged by host.
     */
    @Test
    void aDetachedServicesShellEndingIsNoFailureAndItsOutputComesOverTheDriver() throws Exception {
        ServiceStart single = inProcess();
        List<String> printed = new CopyOnWriteArrayList<>();
        ServiceStart detaching = new ServiceStart() {
            @Override
            public Started start(String host, Endpoint driver, String label, Secret key) throws IOException {
                // the shell exits at once: 0 as after a detach, 3 as a shell that failed (its service never started)
                String code = host.equals("broken") ? "3" : "0";
                org.troika.common.exec.ProcessSupervisor shell = org.troika.common.exec.ProcessSupervisor.start(
                        new org.troika.common.exec.LaunchPlan(List.of("sh", "-c", "exit " + code), Map.of()),
                        l -> { }, l -> { });
                if (!host.equals("broken")) {
                    try {
                        shell.awaitExit(Duration.ofSeconds(10)); // ended before its service even connects
                    } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException();
                    }
                    single.start(host, driver, label, key);
                }
                return new Started(shell, null, null, true);
            }

            @Override
            public void detachedOutput(String host, byte[] line) {
                printed.add(host + ": " + new String(line, StandardCharsets.UTF_8));
            }
        };
        TaskServicePool pool = pool(detaching, loopback(), Duration.ofSeconds(30));
        long t0 = System.nanoTime();
        HostsNotReadyException e = assertThrows(HostsNotReadyException.class,
                () -> pool.ready(List.of("a", "b", "broken")));
        assertEquals(List.of("broken"), e.missing());
        assertTrue(e.getMessage().contains("broken (exit 3)"), e.getMessage());
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0) < 20, "waited for the start timeout");
        pool.ready(List.of("a", "b"));
        assertEquals(HostState.PROVISIONED, pool.state("a"));
        assertEquals(Map.of(), pool.start(List.of("a", "b"))); // their shells ended: not started again
        assertEquals(2, told.size(), told.toString());

        java.io.OutputStream err = services.get("a").toDriver(2);
        err.write("first\nsec".getBytes(StandardCharsets.UTF_8));
        err.write("ond\n".getBytes(StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (printed.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(List.of("a: first\n", "a: second\n"), printed);

        // a run without a newline goes in 64 KiB pieces, never cut inside a character: the é at the cut comes whole
        String run = "x".repeat(64 * 1024 - 1);
        err.write((run + "é\n").getBytes(StandardCharsets.UTF_8));
        while (printed.size() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(List.of("a: " + run, "a: é\n"), printed.subList(2, printed.size()));
    }

    /**
     * Issue 23: at the job's end the services remove the elastic job's node store themselves (the final Shutdown says
     * the job is over) and the pool names the hosts that did, so the end-of-job cleanup (one remote shell per host)
     * runs only where they did not: here not for a and b, and not claimed for c, which left the job before (its store
     * is kept for that cleanup).
     */
    @Test
    void atTheJobsEndTheServicesRemoveTheNodeStoreAndThePoolNamesWhereTheyDid() throws Exception {
        String job = "pool-test-" + Long.toHexString(System.nanoTime());
        Path store = org.troika.common.NodeStorePaths.directory(org.troika.common.NodeStorePaths.DEFAULT_BASE, job);
        java.nio.file.Files.createDirectories(store.resolve("rank-0"));
        try {
            TaskServicePool pool = pool(inProcess(), loopback(), Duration.ofSeconds(30));
            pool.ready(List.of("a", "b", "c"));
            pool.announceNodeStore(job);
            pool.stop("c", "host left the job");
            assertTrue(services.get("c").awaitStop().contains("host left the job"));
            assertTrue(java.nio.file.Files.isDirectory(store), "a Shutdown other than the job's end removed the store");
            pool.close();
            assertEquals(java.util.Set.of("a", "b"), pool.nodeStoreRemoved());
            assertTrue(!java.nio.file.Files.exists(store), "the store outlived the job's end");
        } finally {
            org.troika.common.PrivateFiles.deleteTreeQuietly(store);
        }
    }
}
