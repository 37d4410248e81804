package org.troika.rsh.task;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether the other end of a TCP connection still acknowledges what this side sends, as the kernel sees it
 * ({@code /proc/self/net/tcp} and {@code tcp6}, Linux). It tells a peer process that is stopped or busy (its kernel
 * goes on acknowledging: Ctrl-Z, {@code SIGSTOP}, a long pause) from a peer that is gone or cut off (what this side
 * sent is being retransmitted, or the connection is gone). A task service asks it before it gives up on a silent
 * driver: a stopped launcher must not cost the job.
 */
final class TcpPeer {
    /** What the kernel says about the peer. */
    enum State {
        /** Everything sent was acknowledged, or the peer answers (its window may be full: it does not read). */
        ACKNOWLEDGING,
        /** What this side sent goes unanswered (retransmitted, or probed), or the connection is no longer established. */
        UNREACHABLE,
        /** The kernel's tables cannot be read here (not Linux). */
        UNKNOWN
    }

    private static final List<Path> TABLES = List.of(Path.of("/proc/self/net/tcp"), Path.of("/proc/self/net/tcp6"));
    private static final String ESTABLISHED = "01";
    /** The kernel's timer column: a retransmission is due. */
    private static final int RETRANSMIT_TIMER = 1;
    /** The kernel's timer column: a window probe is due (the peer's window is full, or the data could not leave). */
    private static final int PROBE_TIMER = 4;
    /** Retransmissions or probes in a row without an answer that mean the peer is unreachable. */
    private static final int UNANSWERED = 2;

    private TcpPeer() {}

    /** The state of {@code s}'s peer. */
    static State of(Socket s) {
        InetSocketAddress local = (InetSocketAddress) s.getLocalSocketAddress();
        InetSocketAddress remote = (InetSocketAddress) s.getRemoteSocketAddress();
        if (local == null || remote == null) {
            return State.UNREACHABLE;
        }
        boolean readable = false;
        for (Path table : TABLES) {
            String text;
            try {
                text = Files.readString(table);
            } catch (IOException | RuntimeException e) {
                continue;
            }
            readable = true;
            State st = parse(text, local, remote, ByteOrder.nativeOrder());
            if (st != null) {
                return st;
            }
        }
        return readable ? State.UNREACHABLE : State.UNKNOWN;
    }

    /**
     * The state of the connection {@code local}–{@code remote} in one {@code /proc/net/tcp}-format table, or {@code null}
     * when the table does not list it. Addresses there are the kernel's 32-bit words in hex, in {@code order}.
     */
    static State parse(String table, InetSocketAddress local, InetSocketAddress remote, ByteOrder order) {
        for (String line : table.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 7 || !f[0].endsWith(":")) {
                continue; // the header, or a short line
            }
            if (!matches(f[1], local, order) || !matches(f[2], remote, order)) {
                continue;
            }
            if (!f[3].equals(ESTABLISHED)) {
                return State.UNREACHABLE;
            }
            long unacknowledged = Long.parseLong(f[4].substring(0, f[4].indexOf(':')), 16);
            int timer = Integer.parseInt(f[5].substring(0, f[5].indexOf(':')), 16);
            long retransmits = Long.parseLong(f[6], 16);
            long probes = f.length > 8 ? Long.parseLong(f[8]) : 0;
            if (unacknowledged == 0) {
                return State.ACKNOWLEDGING;
            }
            // every answer from the peer resets both counts: two in a row unanswered mean nobody is there (a probe
            // timer with unsent data is also what a route that went away looks like: the data never left)
            boolean unanswered = timer == RETRANSMIT_TIMER && retransmits >= UNANSWERED
                    || timer == PROBE_TIMER && probes >= UNANSWERED;
            return unanswered ? State.UNREACHABLE : State.ACKNOWLEDGING;
        }
        return null;
    }

    /** Whether {@code field} ({@code HEXADDR:HEXPORT}) is {@code a}; IPv4-mapped IPv6 addresses count as IPv4. */
    private static boolean matches(String field, InetSocketAddress a, ByteOrder order) {
        int colon = field.indexOf(':');
        if (colon < 0 || Integer.parseInt(field.substring(colon + 1), 16) != a.getPort()) {
            return false;
        }
        String hex = field.substring(0, colon);
        if (hex.length() % 8 != 0) {
            return false;
        }
        byte[] bytes = new byte[hex.length() / 2];
        for (int w = 0; w < hex.length() / 8; w++) {
            long word = Long.parseLong(hex.substring(8 * w, 8 * w + 8), 16);
            for (int i = 0; i < 4; i++) {
                int shift = order == ByteOrder.LITTLE_ENDIAN ? 8 * i : 8 * (3 - i);
                bytes[4 * w + i] = (byte) (word >>> shift);
            }
        }
        try {
            return InetAddress.getByAddress(bytes).equals(a.getAddress());
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
