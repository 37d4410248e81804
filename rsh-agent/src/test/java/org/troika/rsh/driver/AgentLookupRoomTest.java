package org.troika.rsh.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.troika.rsh.agent.AgentKey;
import org.troika.wire.Endpoint;
import org.troika.wire.NicAddress;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.wire.ServiceBusyException;
import org.troika.wire.WireChannel;

/**
 * Issue 23: while a launch's agent key is open, every host's agent finds room at the driver at the same time, however
 * many task services hold their connections there. In a tree launch the agents of thousands of hosts look their hosts
 * up at once; with room for only a few hundred beyond the registered hosts, `bench/scale.sh`'s 10,000 simulated agents
 * were answered busy 52,481 times and took 7.5 s to all look up (they retry after a back-off of up to 400 ms).
 */
@Timeout(120)
class AgentLookupRoomTest {
    /** More than the driver's room beyond its expected hosts (256 + 256 connections), so the test needs the launch's. */
    private static final int HOSTS = 3 * DriverService.MIN_HOST_CONNECTIONS;

    @Test
    void everyHostsAgentIsLetInAtOnceWhileTheLaunchKeyIsOpen() throws Exception {
        Secret secret = Secret.generate();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < HOSTS; i++) {
            names.add("h" + i);
        }
        Endpoint service = new Endpoint("127.0.0.1", 7);
        List<WireChannel<RelayMessage>> open = new ArrayList<>();
        CountDownLatch spent = new CountDownLatch(1);
        try (DriverService driver = new DriverService(secret, InetAddress.getLoopbackAddress(), names,
                Duration.ofSeconds(10), Duration.ofSeconds(100), (h, why) -> { })) {
            for (String h : names) {
                WireChannel<RelayMessage> c = WireChannel.connectAny(List.of(driver.endpoint()), Protocol.RELAY, secret,
                        30_000);
                open.add(c);
                c.send(new RelayMessage.Register(h, h, List.of(service), List.<NicAddress>of()));
                assertInstanceOf(RelayMessage.Registered.class, c.receive());
            }
            driver.awaitHosts(Duration.ofSeconds(30));
            Secret agentKey = AgentKey.derive(secret, AgentKey.newLabel());
            driver.openAgentKey(agentKey, spent::countDown);

            // every agent past its hello before any looks up: each holds a connection at the driver at the same time.
            // Each from an address of its own, as each host's agent is: from one address the driver lets only
            // maxPendingPerPeer hellos wait (a flood's bound), and a client's hello ends when it is sent, so a loop
            // of connects from 127.0.0.1 could get 16 ahead of the driver's selector on a busy machine (CI: 4 busy)
            List<WireChannel<RelayMessage>> agents = new ArrayList<>();
            int busy = 0;
            for (int i = 0; i < HOSTS; i++) {
                Socket s = new Socket();
                try {
                    s.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 1, (byte) (i / 250),
                            (byte) (1 + i % 250)}), 0));
                    s.connect(driver.endpoint().socketAddress(), 30_000);
                    s.setSoTimeout(30_000);
                    agents.add(WireChannel.connect(s, Protocol.RELAY, agentKey, 1 << 20));
                } catch (ServiceBusyException e) {
                    busy++;
                    s.close();
                }
            }
            open.addAll(agents);
            assertEquals(0, busy, "agents answered busy while the launch's key was open");

            for (int i = 0; i < HOSTS; i++) {
                agents.get(i).send(new RelayMessage.Lookup("h" + i));
            }
            for (int i = 0; i < HOSTS; i++) {
                RelayMessage reply = agents.get(i).receive();
                assertEquals(new RelayMessage.LookupReply("h" + i, List.of(service)), reply);
            }
            assertTrue(spent.await(30, TimeUnit.SECONDS), "the key is spent once every host was looked up");
            assertEquals(HOSTS, driver.agentLookups().size());
        } finally {
            for (WireChannel<RelayMessage> c : open) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }
}
