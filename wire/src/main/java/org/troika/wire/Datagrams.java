package org.troika.wire;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Authenticated datagrams of one protocol, for messages that a sender repeats anyway and a receiver may miss now and
 * then (ranks' progress reports): the receiver holds one UDP socket whatever the number of senders, not a connection
 * each, so a launch node pays nothing per rank in descriptors or connection buffers (issue 23).
 *
 * <pre>
 * datagram:  'T' 'D' version(1) protocol(1) type(1) sender(8) seq(8, big-endian) length(2, big-endian) | body | mac(32)
 * mac     =  HMAC-SHA256(key, "troika-datagram-1" | header | body)
 * </pre>
 *
 * <p>A receiver checks the length and then the MAC before it reads anything else of a datagram; the protocol byte is
 * inside the MAC, so a datagram of one protocol never opens at another's receiver under the same key. A sender is a
 * random 64-bit id chosen when its {@link Sealer} is made; it numbers its datagrams from 1. An {@link Opener} accepts
 * from each sender only numbers above the last one it accepted: a replayed datagram, or one that arrives after a newer
 * one, is dropped. It remembers at most {@code maxSenders} senders; a new sender past that is refused (the receiver is
 * sized for the senders it expects; only holders of the key can be senders at all).
 */
public final class Datagrams {
    public static final int HEADER = 23;
    public static final int MAC_LEN = Handshake.MAC_LEN;
    /** Longest body: a datagram stays within one Ethernet frame's payload with room to spare. */
    public static final int MAX_BODY = 1_200;
    /** Longest datagram; a receive buffer of this size never truncates one. */
    public static final int MAX_DATAGRAM = HEADER + MAX_BODY + MAC_LEN;
    static final int VERSION = 1;
    private static final byte[] LABEL = "troika-datagram-1".getBytes(StandardCharsets.US_ASCII);

    private Datagrams() {}

    /** The keyed prefix of every datagram's MAC under {@code key}. */
    private static HmacSha256 prefix(Secret key) {
        return key.mac().copy().update(LABEL);
    }

    /** An authenticated datagram: its sender, its number and its message. */
    public record Opened<M>(long sender, long seq, M message) {}

    /** The datagram its sender sent last, again (authenticated): answer it again if it asks for an answer. */
    public static final class Repeated extends WireException {
        private static final long serialVersionUID = 1L;
        private final long sender;
        private final long seq;

        Repeated(long sender, long seq) {
            super("datagram " + seq + " again");
            this.sender = sender;
            this.seq = seq;
        }

        public long sender() {
            return sender;
        }

        public long seq() {
            return seq;
        }
    }

    /** Seals one sender's datagrams. Not thread-safe: one sender, one thread. */
    public static final class Sealer<M> {
        private final Protocol<M> protocol;
        private final HmacSha256 prefix;
        private final HmacSha256.Scratch scratch = new HmacSha256.Scratch();
        private final long sender;
        private long seq;

        public Sealer(Protocol<M> protocol, Secret key) {
            this.protocol = protocol;
            this.prefix = prefix(key);
            this.sender = Nonces.randomLong();
        }

        /** This sender's id. */
        public long sender() {
            return sender;
        }

        /** The number of the last datagram sealed (0 before the first). */
        public long seq() {
            return seq;
        }

        /** The next datagram carrying {@code m}. */
        public byte[] seal(M m) {
            byte[] body = protocol.encode(m);
            if (body.length > MAX_BODY) {
                throw new IllegalArgumentException(protocol.name() + " datagram body of " + body.length
                        + " bytes is over " + MAX_BODY);
            }
            byte[] d = new byte[HEADER + body.length + MAC_LEN];
            ByteBuffer.wrap(d).put((byte) 'T').put((byte) 'D').put((byte) VERSION).put((byte) protocol.id())
                    .put((byte) protocol.typeOf(m)).putLong(sender).putLong(++seq).putShort((short) body.length)
                    .put(body);
            scratch.mac(prefix, d, 0, HEADER + body.length, d, HEADER + body.length);
            return d;
        }
    }

    /** Opens one receiver's datagrams. Not thread-safe: one receiving thread. */
    public static final class Opener<M> {
        private final Protocol<M> protocol;
        private final HmacSha256 prefix;
        private final HmacSha256.Scratch scratch = new HmacSha256.Scratch();
        private final int maxSenders;
        private final Map<Long, long[]> lastSeq = new HashMap<>();

        public Opener(Protocol<M> protocol, Secret key, int maxSenders) {
            if (maxSenders < 1) {
                throw new IllegalArgumentException("an opener needs room for a sender, not " + maxSenders);
            }
            this.protocol = protocol;
            this.prefix = prefix(key);
            this.maxSenders = maxSenders;
        }

        /**
         * The message in {@code b[off..off+len)}, authenticated, of this protocol, newer than anything its sender sent
         * before; the same datagram again (its sender's last number: a sender that repeats because it heard no answer)
         * is a {@link Repeated}; anything else is a {@link WireException} and leaves no trace but the sender's last
         * number.
         */
        public Opened<M> open(byte[] b, int off, int len) throws WireException {
            if (len < HEADER + MAC_LEN || len > MAX_DATAGRAM) {
                throw new WireException("a datagram of " + len + " bytes is not a troika datagram");
            }
            int bodyLength = len - HEADER - MAC_LEN;
            byte[] expected = scratch.result();
            scratch.mac(prefix, b, off, HEADER + bodyLength, expected, 0);
            if (!Frames.equalInConstantTime(expected, b, off + HEADER + bodyLength)) {
                throw new WireException("datagram MAC does not verify (wrong key or tampered datagram)");
            }
            ByteBuffer h = ByteBuffer.wrap(b, off, HEADER);
            if (h.get(off) != 'T' || h.get(off + 1) != 'D' || h.get(off + 2) != VERSION) {
                throw new WireException("datagram of another version");
            }
            if ((h.get(off + 3) & 0xff) != protocol.id()) {
                throw new WireException("datagram of the " + Protocol.nameOf(h.get(off + 3) & 0xff) + " at a "
                        + protocol.name() + " receiver");
            }
            int type = h.get(off + 4) & 0xff;
            long sender = h.getLong(off + 5);
            long seq = h.getLong(off + 13);
            if ((h.getShort(off + 21) & 0xffff) != bodyLength) {
                throw new WireException("datagram length field does not match its size");
            }
            long[] last = lastSeq.get(sender);
            if (last == null) {
                if (lastSeq.size() >= maxSenders) {
                    throw new WireException("more than " + maxSenders + " senders");
                }
                last = new long[1];
                lastSeq.put(sender, last);
            }
            if (seq == last[0]) {
                throw new Repeated(sender, seq);
            }
            if (seq < last[0]) {
                throw new WireException("datagram " + seq + " of a sender already at " + last[0]
                        + " (replayed or late)");
            }
            last[0] = seq;
            byte[] body = new byte[bodyLength];
            System.arraycopy(b, off + HEADER, body, 0, bodyLength);
            return new Opened<>(sender, seq, protocol.decode(type, body));
        }

        /** Senders remembered. */
        public int senders() {
            return lastSeq.size();
        }
    }

    /**
     * Receive buffer a receiver asks for: a whole large job's senders may send within a few milliseconds. The kernel
     * grants at most net.core.rmem_max (4 MiB on many distributions, 208 KiB on some); senders repeat what it drops.
     */
    public static final int RECEIVE_BUFFER = 4 << 20;

    /** A UDP socket bound to {@code port} (0: any) of {@code address}, with {@link #RECEIVE_BUFFER} asked for. */
    public static DatagramChannel bind(InetAddress address, int port) throws IOException {
        DatagramChannel ch = DatagramChannel.open(address instanceof Inet6Address ? StandardProtocolFamily.INET6
                : StandardProtocolFamily.INET);
        try {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER);
            ch.bind(new InetSocketAddress(address, port));
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * A thread that receives a socket's datagrams, opens each ({@link Opener}: nothing is read before its MAC) and
     * hands it to a {@link Handler}; it ends when the socket is closed ({@link #close}).
     */
    public static final class Receiver<M> implements AutoCloseable {
        /** What a receiver does with its datagrams; called on its thread, one at a time. */
        public interface Handler<M> {
            /** An authenticated datagram, new from its sender; false when it is not one this service takes. */
            boolean received(Opened<M> datagram, SocketAddress from);

            /** The datagram its sender sent last, again (it heard no answer); nothing by default. */
            default void repeated(Repeated repeat, SocketAddress from) {
            }
        }

        private final DatagramChannel channel;
        private final Thread thread;
        private final AtomicLong dropped = new AtomicLong();

        public Receiver(String name, DatagramChannel channel, Opener<M> opener, Handler<M> handler) {
            this.channel = channel;
            this.thread = new Thread(() -> run(opener, handler), name);
            thread.setDaemon(true);
            thread.start();
        }

        private void run(Opener<M> opener, Handler<M> handler) {
            ByteBuffer buf = ByteBuffer.allocate(MAX_DATAGRAM + 1);
            while (true) {
                buf.clear();
                SocketAddress from;
                try {
                    from = channel.receive(buf);
                } catch (ClosedChannelException e) {
                    return;
                } catch (IOException e) {
                    if (!channel.isOpen()) {
                        return;
                    }
                    continue; // a datagram the kernel could not hand over: the next one will do
                }
                try {
                    if (!handler.received(opener.open(buf.array(), 0, buf.position()), from)) {
                        dropped.incrementAndGet();
                    }
                } catch (Repeated r) {
                    dropped.incrementAndGet(); // never taken twice; the handler may answer it again
                    handler.repeated(r, from);
                } catch (WireException e) {
                    dropped.incrementAndGet(); // not authentic, replayed or late: nothing was acted upon
                }
            }
        }

        /** Datagrams not taken so far: not authentic, repeated, replayed, late, or refused by the handler. */
        public long dropped() {
            return dropped.get();
        }

        /** Closes the socket and waits (at most 2 s) for the thread to end. */
        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing
            }
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
