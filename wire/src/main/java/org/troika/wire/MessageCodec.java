package org.troika.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Data-only body encoding of {@link Message}s: big-endian integers, strings as u32 length + UTF-8, lists and maps as
 * u32 count + items. Decoding checks every length against the bytes actually left, so a hostile body cannot make it
 * allocate more than the (already size-capped) frame, and rejects trailing bytes. Only called after the MAC verified.
 */
final class MessageCodec {
    private MessageCodec() {}

    // Type bytes: stable on the wire; never reuse a retired number.
    static final int REGISTER = 1;
    static final int HEARTBEAT = 2;
    static final int PROBE_REQUEST = 3;
    static final int PROBE_REPORT = 4;
    static final int SHUTDOWN = 5;
    static final int LOOKUP = 6;
    static final int LOOKUP_REPLY = 7;
    static final int EXEC = 8;
    static final int ABORT = 9;
    static final int OUTPUT = 10;
    static final int EXITED = 11;
    static final int PING = 12;
    static final int PONG = 13;
    static final int FAILURE = 14;
    static final int CONFIGURE = 15;
    static final int SPARK_TASK = 16;
    static final int SPARK_ASSIGN = 17;
    static final int FETCH_FUNCTION = 18;
    static final int FUNCTION_BYTES = 19;
    static final int RANK_RESULT = 20;
    static final int HOSTS_CHANGED = 21;
    static final int NETWORKS = 22;

    static int typeOf(Message m) {
        // Java 17: no pattern switch; the sealed hierarchy keeps this list complete (a test checks every record).
        if (m instanceof Message.Register) return REGISTER;
        if (m instanceof Message.Heartbeat) return HEARTBEAT;
        if (m instanceof Message.ProbeRequest) return PROBE_REQUEST;
        if (m instanceof Message.ProbeReport) return PROBE_REPORT;
        if (m instanceof Message.Shutdown) return SHUTDOWN;
        if (m instanceof Message.Lookup) return LOOKUP;
        if (m instanceof Message.LookupReply) return LOOKUP_REPLY;
        if (m instanceof Message.Exec) return EXEC;
        if (m instanceof Message.Abort) return ABORT;
        if (m instanceof Message.Output) return OUTPUT;
        if (m instanceof Message.Exited) return EXITED;
        if (m instanceof Message.Ping) return PING;
        if (m instanceof Message.Pong) return PONG;
        if (m instanceof Message.Failure) return FAILURE;
        if (m instanceof Message.Configure) return CONFIGURE;
        if (m instanceof Message.Networks) return NETWORKS;
        if (m instanceof Message.SparkTask) return SPARK_TASK;
        if (m instanceof Message.SparkAssign) return SPARK_ASSIGN;
        if (m instanceof Message.FetchFunction) return FETCH_FUNCTION;
        if (m instanceof Message.FunctionBytes) return FUNCTION_BYTES;
        if (m instanceof Message.RankResult) return RANK_RESULT;
        if (m instanceof Message.HostsChanged) return HOSTS_CHANGED;
        throw new IllegalArgumentException("no wire type for " + m.getClass());
    }

    static byte[] encode(Message m) {
        Out o = new Out();
        if (m instanceof Message.Register r) {
            o.str(r.host()).str(r.hostname()).endpoints(r.endpoints()).u32(r.nics().size());
            for (NicAddress n : r.nics()) {
                o.str(n.ifname()).str(n.address()).u32(n.prefixLength()).u8(n.loopback() ? 1 : 0);
            }
        } else if (m instanceof Message.Heartbeat h) {
            o.i64(h.sentMillis());
        } else if (m instanceof Message.ProbeRequest p) {
            o.u32(p.peers().size());
            for (Map.Entry<String, List<Endpoint>> e : p.peers().entrySet()) {
                o.str(e.getKey()).endpoints(e.getValue());
            }
            o.u32(p.timeoutMillis());
        } else if (m instanceof Message.ProbeReport p) {
            o.str(p.host()).u32(p.reachable().size());
            for (Map.Entry<String, List<String>> e : p.reachable().entrySet()) {
                o.str(e.getKey()).strs(e.getValue());
            }
        } else if (m instanceof Message.Shutdown s) {
            o.str(s.reason());
        } else if (m instanceof Message.Lookup l) {
            o.str(l.host());
        } else if (m instanceof Message.LookupReply l) {
            o.str(l.host()).endpoints(l.endpoints());
        } else if (m instanceof Message.Exec e) {
            o.i64(e.requestId()).str(e.commandLine());
        } else if (m instanceof Message.Abort a) {
            o.i64(a.requestId());
        } else if (m instanceof Message.Output x) {
            o.u8(x.stream()).bytes(x.data());
        } else if (m instanceof Message.Exited x) {
            o.u32(x.exitCode());
        } else if (m instanceof Message.Ping p) {
            o.str(p.from());
        } else if (m instanceof Message.Pong p) {
            o.str(p.host());
        } else if (m instanceof Message.Failure f) {
            o.str(f.message());
        } else if (m instanceof Message.Configure c) {
            o.str(c.hostname());
        } else if (m instanceof Message.Networks n) {
            o.str(n.ncclSocketIfname());
        } else if (m instanceof Message.SparkTask t) {
            o.u32(t.index()).str(t.hostHash()).str(t.executor());
        } else if (m instanceof Message.SparkAssign a) {
            o.str(a.serviceHost()).endpoints(a.driver());
        } else if (m instanceof Message.FetchFunction f) {
            o.u32(f.rank());
        } else if (m instanceof Message.FunctionBytes f) {
            o.str(f.classFilter()).bytes(f.data());
        } else if (m instanceof Message.RankResult r) {
            o.u32(r.rank()).u8(r.ok() ? 1 : 0).bytes(r.data());
        } else if (m instanceof Message.HostsChanged h) {
            o.i64(h.timestampMillis()).u32(h.bits());
        } else {
            throw new IllegalArgumentException("no wire encoding for " + m.getClass());
        }
        return o.toByteArray();
    }

    static Message decode(int type, byte[] body) throws WireException {
        In in = new In(body);
        Message m;
        try {
            m = switch (type) {
                case REGISTER -> {
                    String host = in.str();
                    String hostname = in.str();
                    List<Endpoint> eps = in.endpoints();
                    int n = in.count(10);
                    List<NicAddress> nics = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        nics.add(new NicAddress(in.str(), in.str(), in.u32(), in.u8() != 0));
                    }
                    yield new Message.Register(host, hostname, eps, nics);
                }
                case HEARTBEAT -> new Message.Heartbeat(in.i64());
                case PROBE_REQUEST -> {
                    int n = in.count(8);
                    Map<String, List<Endpoint>> peers = new LinkedHashMap<>();
                    for (int i = 0; i < n; i++) {
                        peers.put(in.str(), in.endpoints());
                    }
                    yield new Message.ProbeRequest(peers, in.u32());
                }
                case PROBE_REPORT -> {
                    String host = in.str();
                    int n = in.count(8);
                    Map<String, List<String>> r = new LinkedHashMap<>();
                    for (int i = 0; i < n; i++) {
                        r.put(in.str(), in.strs());
                    }
                    yield new Message.ProbeReport(host, r);
                }
                case SHUTDOWN -> new Message.Shutdown(in.str());
                case LOOKUP -> new Message.Lookup(in.str());
                case LOOKUP_REPLY -> new Message.LookupReply(in.str(), in.endpoints());
                case EXEC -> new Message.Exec(in.i64(), in.str());
                case ABORT -> new Message.Abort(in.i64());
                case OUTPUT -> new Message.Output(in.u8(), in.bytes());
                case EXITED -> new Message.Exited(in.u32());
                case PING -> new Message.Ping(in.str());
                case PONG -> new Message.Pong(in.str());
                case FAILURE -> new Message.Failure(in.str());
                case CONFIGURE -> new Message.Configure(in.str());
                case NETWORKS -> new Message.Networks(in.str());
                case SPARK_TASK -> new Message.SparkTask(in.u32(), in.str(), in.str());
                case SPARK_ASSIGN -> new Message.SparkAssign(in.str(), in.endpoints());
                case FETCH_FUNCTION -> new Message.FetchFunction(in.u32());
                case FUNCTION_BYTES -> new Message.FunctionBytes(in.str(), in.bytes());
                case RANK_RESULT -> new Message.RankResult(in.u32(), in.u8() != 0, in.bytes());
                case HOSTS_CHANGED -> new Message.HostsChanged(in.i64(), in.u32());
                default -> throw new WireException("unknown message type " + type);
            };
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            throw new WireException("malformed body of message type " + type + ": " + e.getMessage());
        }
        if (in.remaining() != 0) {
            throw new WireException("trailing bytes after message type " + type);
        }
        return m;
    }

    /** Growing big-endian writer. */
    private static final class Out {
        private final ByteArrayOutputStream b = new ByteArrayOutputStream(64);

        Out u8(int v) {
            b.write(v);
            return this;
        }

        Out u32(int v) {
            b.write(v >>> 24);
            b.write(v >>> 16);
            b.write(v >>> 8);
            b.write(v);
            return this;
        }

        Out i64(long v) {
            u32((int) (v >>> 32));
            return u32((int) v);
        }

        Out bytes(byte[] v) {
            u32(v.length);
            b.writeBytes(v);
            return this;
        }

        Out str(String s) {
            return bytes(s.getBytes(StandardCharsets.UTF_8));
        }

        Out strs(List<String> l) {
            u32(l.size());
            for (String s : l) {
                str(s);
            }
            return this;
        }

        Out endpoints(List<Endpoint> l) {
            u32(l.size());
            for (Endpoint e : l) {
                str(e.address()).u32(e.port());
            }
            return this;
        }

        byte[] toByteArray() {
            return b.toByteArray();
        }
    }

    /** Bounds-checked reader; every length is checked against what is left before allocating. */
    private static final class In {
        private final ByteBuffer buf;

        In(byte[] body) {
            buf = ByteBuffer.wrap(body);
        }

        int remaining() {
            return buf.remaining();
        }

        private void need(long n) throws WireException {
            if (n < 0 || n > buf.remaining()) {
                throw new WireException("truncated body: need " + n + " bytes, " + buf.remaining() + " left");
            }
        }

        int u8() throws WireException {
            need(1);
            return buf.get() & 0xff;
        }

        int u32() throws WireException {
            need(4);
            return buf.getInt();
        }

        long i64() throws WireException {
            need(8);
            return buf.getLong();
        }

        /** A count of items each at least {@code minItemBytes} long, so it cannot exceed what is left. */
        int count(int minItemBytes) throws WireException {
            int n = u32();
            need((long) n * minItemBytes);
            return n;
        }

        byte[] bytes() throws WireException {
            int n = u32();
            need(n & 0xffffffffL);
            byte[] v = new byte[n];
            buf.get(v);
            return v;
        }

        String str() throws WireException {
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes())).toString();
            } catch (CharacterCodingException e) {
                throw new WireException("invalid UTF-8 in message body");
            }
        }

        List<String> strs() throws WireException {
            int n = count(4);
            List<String> l = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                l.add(str());
            }
            return l;
        }

        List<Endpoint> endpoints() throws WireException {
            int n = count(8);
            List<Endpoint> l = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                l.add(new Endpoint(str(), u32()));
            }
            return l;
        }
    }
}
