package org.troika.rsh.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
 * A registration cannot be lost silently (issue 23.2): the driver acknowledges a Register ({@link
 * RelayMessage.Registered}), and a task service whose connection the driver dropped before it read the Register (as
 * the driver does with a hello later than its hello deadline when thousands of hosts register at once) registers
 * again instead of believing itself registered.
 */
@Timeout(60)
class RegistrationTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration LIVENESS = Duration.ofMillis(1000);

    @TempDir
    Path tmp;

    @Test
    void theDriverAnswersARegisterWithRegisteredAsTheFirstFrame() throws Exception {
        Secret secret = Secret.generate();
        try (DriverService driver = new DriverService(secret, InetAddress.getLoopbackAddress(), List.of("hostA"),
                HEARTBEAT, LIVENESS, (h, why) -> { });
                WireChannel<RelayMessage> c = WireChannel.connectAny(List.of(driver.endpoint()), Protocol.RELAY, secret,
                        10_000)) {
            c.send(new RelayMessage.Register("hostA", "hostA", List.of(), List.<NicAddress>of()));
            assertInstanceOf(RelayMessage.Registered.class, c.receive());
            driver.awaitHosts(Duration.ofSeconds(10));
        }
    }

    /**
     * Fails without the acknowledgement: the service's start returned after the dropped connection, the service then
     * read the connection's end and stopped, and the driver never saw the host.
     */
    @Test
    void aServiceWhoseFirstConnectionTheDriverDroppedRegistersAgain() throws Exception {
        Secret secret = Secret.generate();
        try (DriverService driver = new DriverService(secret, InetAddress.getLoopbackAddress(), List.of("hostA"),
                HEARTBEAT, LIVENESS, (h, why) -> { });
                DroppingProxy proxy = new DroppingProxy(driver.endpoint())) {
            try (TaskService s = new TaskService(new TaskService.Config("hostA", List.of(proxy.endpoint()), secret,
                    HEARTBEAT, LIVENESS, System.getenv(), tmp)).start()) {
                driver.awaitHosts(Duration.ofSeconds(20));
                assertEquals(2, proxy.connections.get(), "the first connection was dropped, the second registered");
                assertTrue(driver.registered("hostA"));
                Thread.sleep(3 * LIVENESS.toMillis());
                assertFalse(s.stopped(), "the registered service stopped: " + s.stopReason());
                assertTrue(driver.registered("hostA"), "the host was lost after registering again");
            }
        }
    }

    @Test
    void aRefusedRegistrationFailsTheServiceStartWithTheDriversReason() throws Exception {
        Secret secret = Secret.generate();
        try (DriverService driver = new DriverService(secret, InetAddress.getLoopbackAddress(), List.of("hostA"),
                HEARTBEAT, LIVENESS, (h, why) -> { })) {
            TaskService s = new TaskService(new TaskService.Config("hostZ", List.of(driver.endpoint()), secret,
                    HEARTBEAT, LIVENESS, System.getenv(), tmp));
            IOException e = assertThrows(IOException.class, s::start);
            assertTrue(e.getMessage().contains("refused host hostZ") && e.getMessage().contains("not expected"),
                    e.getMessage());
        }
    }

    /**
     * Forwards connections to the driver, except the first: it passes the driver's hello to the client, reads what the
     * client sends (its hello and Register) and closes both ends without forwarding it, as the driver closes a
     * connection whose hello came too late.
     */
    private static final class DroppingProxy implements AutoCloseable {
        final AtomicInteger connections = new AtomicInteger();
        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final Endpoint driver;
        private final Thread acceptor;

        DroppingProxy(Endpoint driver) throws IOException {
            this.driver = driver;
            this.acceptor = new Thread(this::accept, "dropping-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        Endpoint endpoint() {
            return new Endpoint("127.0.0.1", listener.getLocalPort());
        }

        private void accept() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    Socket up = new Socket();
                    up.connect(driver.socketAddress());
                    if (connections.incrementAndGet() == 1) {
                        byte[] serverHello = up.getInputStream().readNBytes(20);
                        client.getOutputStream().write(serverHello);
                        // the client's hello (52 bytes) and at least the Register frame's header
                        byte[] sent = client.getInputStream().readNBytes(52 + 16);
                        assertEquals(68, sent.length);
                        up.close();
                        client.close();
                        continue;
                    }
                    pipe(client.getInputStream(), up.getOutputStream());
                    pipe(up.getInputStream(), client.getOutputStream());
                }
            } catch (IOException e) {
                // closed
            }
        }

        private static void pipe(InputStream in, OutputStream out) {
            Thread t = new Thread(() -> {
                try (in; out) {
                    in.transferTo(out);
                } catch (IOException e) {
                    // one side ended
                }
            }, "dropping-proxy-pipe");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
