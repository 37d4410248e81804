package org.troika.rsh.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.troika.rsh.task.TaskService;
import org.troika.wire.Endpoint;
import org.troika.wire.NicAddress;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * The driver stopped ({@code SIGSTOP}, as Ctrl-Z stops troika) for five liveness timeouts: its task services wait for it
 * (its machine acknowledges their heartbeats) and, once it runs again, it blames none of them; a host that really fell
 * silent is reported, with the reason. The driver runs in a process of its own ({@link DriverChildMain}); the services
 * run here.
 */
@Timeout(120)
class DriverPauseTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration LIVENESS = Duration.ofMillis(500);

    @TempDir
    Path tmp;

    @Test
    void aStoppedDriverBlamesNoHostAndItsServicesWaitWhileASilentHostIsReported() throws Exception {
        Secret secret = Secret.generate();
        Process driver = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), DriverChildMain.class.getName(), "" + HEARTBEAT.toMillis(),
                "" + LIVENESS.toMillis(), "hostA", "hostB", "silent").redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        List<TaskService> services = new ArrayList<>();
        try (OutputStream stdin = driver.getOutputStream()) {
            stdin.write((secret.encode() + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(driver.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String l; (l = r.readLine()) != null; ) {
                        lines.add(l);
                    }
                } catch (java.io.IOException ignored) {
                    // the driver ended
                }
            });
            reader.setDaemon(true);
            reader.start();
            String addr = lines.poll(60, TimeUnit.SECONDS);
            assertNotNull(addr);
            assertTrue(addr.startsWith("ADDR="), addr);
            List<Endpoint> ep = Endpoint.parseList(addr.substring(5), "ADDR");
            for (String h : List.of("hostA", "hostB")) {
                services.add(new TaskService(new TaskService.Config(h, ep, secret, HEARTBEAT, LIVENESS, System.getenv(),
                        tmp)).start());
            }
            // a host whose service registers and then falls silent (its process hangs, the host is cut off)
            try (WireChannel<RelayMessage> silent = WireChannel.connectAny(ep, Protocol.RELAY, secret, 30_000)) {
                silent.send(new RelayMessage.Register("silent", "silent", List.of(), List.<NicAddress>of()));
                String lost = lines.poll(60, TimeUnit.SECONDS);
                assertEquals("lost silent: no heartbeat for " + LIVENESS.toMillis() + " ms", lost);
            }

            signal(driver, "STOP");
            Thread.sleep(5 * LIVENESS.toMillis());
            signal(driver, "CONT");
            Thread.sleep(4 * LIVENESS.toMillis());

            String more = lines.poll(1, TimeUnit.SECONDS);
            assertEquals(null, more, "a host was blamed for the driver's own stop");
            for (TaskService s : services) {
                assertFalse(s.stopped(), "a task service gave up on the stopped driver: " + s.stopReason());
                assertTrue(s.driverSilences() > 0, "the driver was never silent for a service: not stopped?");
            }
        } finally {
            services.forEach(TaskService::close);
            driver.destroy();
            driver.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void signal(Process p, String name) throws Exception {
        Process k = new ProcessBuilder("kill", "-s", name, Long.toString(p.pid())).inheritIO().start();
        assertTrue(k.waitFor(30, TimeUnit.SECONDS) && k.exitValue() == 0, "kill -s " + name);
    }
}
