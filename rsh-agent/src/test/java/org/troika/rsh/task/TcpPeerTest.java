package org.troika.rsh.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The kernel's view of a connection, as table rows of {@code /proc/net/tcp} (the states a stopped, a busy and a gone
 * peer leave there) and on a real loopback connection.
 */
class TcpPeerTest {
    private static final String HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
            + "   uid  timeout inode\n";
    private static final InetSocketAddress LOCAL = new InetSocketAddress("10.214.0.4", 40000);
    private static final InetSocketAddress DRIVER = new InetSocketAddress("10.214.0.1", 35000);

    /** One row for LOCAL -> DRIVER (little-endian words, as on x86 and arm64). */
    private static String row(String state, long txQueue, int timer, int retransmits, int probes) {
        return String.format("   3: 0400D60A:9C40 0100D60A:88B8 %s %08X:00000000 %02X:00000010 %08X     0 %8d 12345 1"
                + " 0000000000000000 20 4 0 10 -1%n", state, txQueue, timer, retransmits, probes);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "everything acknowledged (the peer is stopped; its kernel acks),  01, 0,   0, 0, 0, ACKNOWLEDGING",
        "a heartbeat in flight for the first time,                        01, 57,  1, 0, 0, ACKNOWLEDGING",
        "one retransmission (a lost segment on a live network),           01, 57,  1, 1, 0, ACKNOWLEDGING",
        "retransmitted twice unanswered (partition; the machine is gone), 01, 171, 1, 2, 0, UNREACHABLE",
        "window full but probes answered (the peer does not read),        01, 900, 4, 0, 0, ACKNOWLEDGING",
        "probes unanswered (the route went away: data never left),        01, 171, 4, 0, 3, UNREACHABLE",
        "no longer established (the peer closed),                         08, 0,   0, 0, 0, UNREACHABLE",
    })
    void statesOfTheConnection(String what, String state, long tx, int timer, int retransmits, int probes,
            TcpPeer.State expected) {
        // a listening socket on another port comes first: only the connection's own row counts
        String listening = row("0A", 0, 0, 0, 0).replace("9C40", "0016");
        assertEquals(expected, TcpPeer.parse(HEADER + listening + row(state, tx, timer, retransmits, probes), LOCAL,
                DRIVER, ByteOrder.LITTLE_ENDIAN), what);
    }

    @Test
    void anotherConnectionIsNotThisOne() {
        assertNull(TcpPeer.parse(HEADER + row("01", 0, 0, 0, 0), LOCAL, new InetSocketAddress("10.214.0.1", 35001),
                ByteOrder.LITTLE_ENDIAN));
        assertNull(TcpPeer.parse(HEADER + row("01", 0, 0, 0, 0), LOCAL, DRIVER, ByteOrder.BIG_ENDIAN));
    }

    @Test
    void ipv4MappedRowsOfTheIpv6TableMatchIpv4Sockets() {
        String v6 = HEADER + "   0: 0000000000000000FFFF00000400D60A:9C40 0000000000000000FFFF00000100D60A:88B8 01"
                + " 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 20 4 0 10 -1\n";
        assertEquals(TcpPeer.State.ACKNOWLEDGING, TcpPeer.parse(v6, LOCAL, DRIVER, ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    void aLiveLoopbackConnectionIsFoundAndAcknowledging() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                Socket accepted = server.accept()) {
            client.getOutputStream().write(new byte[100]);
            InputStream in = accepted.getInputStream();
            in.readNBytes(100);
            TcpPeer.State s = TcpPeer.of(client);
            assertNotEquals(TcpPeer.State.UNREACHABLE, s, "a live connection counted as unreachable");
            if (System.getProperty("os.name").equals("Linux")) {
                assertEquals(TcpPeer.State.ACKNOWLEDGING, s);
            }
        }
    }
}
