package org.troika.wire;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.troika.common.exec.NativeText;

/** Body encoding of {@link RelayMessage}s (see {@link BodyOut} for the primitives). */
final class RelayCodec implements Codec<RelayMessage> {
    // Type bytes: stable on the wire; never reuse a retired number (16-22 were the Spark and elastic messages).
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
    static final int NETWORKS = 22;
    static final int AGENT_KEY_SPENT = 23;
    static final int PRIVATE_FILE = 24;
    static final int FILE_STORED = 25;
    static final int NODE_STORE = 26;
    static final int AGENT_KEY_OPEN = 27;
    static final int RANK_ENDED = 28;
    static final int REGISTERED = 29;
    static final int LAUNCH = 30;
    static final int STARTED = 31;

    @Override
    public int typeOf(RelayMessage m) {
        // Java 17: no pattern switch; the sealed interface keeps this list complete (a test checks every record).
        if (m instanceof RelayMessage.Register) return REGISTER;
        if (m instanceof RelayMessage.Heartbeat) return HEARTBEAT;
        if (m instanceof RelayMessage.ProbeRequest) return PROBE_REQUEST;
        if (m instanceof RelayMessage.ProbeReport) return PROBE_REPORT;
        if (m instanceof RelayMessage.Shutdown) return SHUTDOWN;
        if (m instanceof RelayMessage.Lookup) return LOOKUP;
        if (m instanceof RelayMessage.LookupReply) return LOOKUP_REPLY;
        if (m instanceof RelayMessage.Exec) return EXEC;
        if (m instanceof RelayMessage.Abort) return ABORT;
        if (m instanceof RelayMessage.Output) return OUTPUT;
        if (m instanceof RelayMessage.Exited) return EXITED;
        if (m instanceof RelayMessage.Ping) return PING;
        if (m instanceof RelayMessage.Pong) return PONG;
        if (m instanceof RelayMessage.Failure) return FAILURE;
        if (m instanceof RelayMessage.Configure) return CONFIGURE;
        if (m instanceof RelayMessage.Networks) return NETWORKS;
        if (m instanceof RelayMessage.AgentKeySpent) return AGENT_KEY_SPENT;
        if (m instanceof RelayMessage.PrivateFile) return PRIVATE_FILE;
        if (m instanceof RelayMessage.FileStored) return FILE_STORED;
        if (m instanceof RelayMessage.NodeStore) return NODE_STORE;
        if (m instanceof RelayMessage.AgentKeyOpen) return AGENT_KEY_OPEN;
        if (m instanceof RelayMessage.RankEnded) return RANK_ENDED;
        if (m instanceof RelayMessage.Registered) return REGISTERED;
        if (m instanceof RelayMessage.Launch) return LAUNCH;
        if (m instanceof RelayMessage.Started) return STARTED;
        throw new IllegalArgumentException("no relay wire type for " + m.getClass());
    }

    @Override
    public void encode(RelayMessage m, BodyOut o) {
        if (m instanceof RelayMessage.Register r) {
            o.str(r.host()).str(r.hostname()).endpoints(r.endpoints()).u32(r.nics().size());
            for (NicAddress n : r.nics()) {
                o.str(n.ifname()).str(n.address()).u32(n.prefixLength()).u8(n.loopback() ? 1 : 0);
            }
        } else if (m instanceof RelayMessage.Heartbeat h) {
            o.i64(h.sentMillis());
        } else if (m instanceof RelayMessage.ProbeRequest p) {
            o.u32(p.peers().size());
            for (Map.Entry<String, List<Endpoint>> e : p.peers().entrySet()) {
                o.str(e.getKey()).endpoints(e.getValue());
            }
            o.u32(p.timeoutMillis());
        } else if (m instanceof RelayMessage.ProbeReport p) {
            o.str(p.host()).u32(p.reachable().size());
            for (Map.Entry<String, List<String>> e : p.reachable().entrySet()) {
                o.str(e.getKey()).strs(e.getValue());
            }
        } else if (m instanceof RelayMessage.Shutdown s) {
            o.str(s.reason());
        } else if (m instanceof RelayMessage.Lookup l) {
            o.str(l.host());
        } else if (m instanceof RelayMessage.LookupReply l) {
            o.str(l.host()).endpoints(l.endpoints());
        } else if (m instanceof RelayMessage.Exec e) {
            o.i64(e.requestId()).bytes(NativeText.encode(e.commandLine())); // bytes, not UTF-8: see Exec
        } else if (m instanceof RelayMessage.Launch l) {
            o.i64(l.requestId()).bytes(NativeText.encode(l.commandLine())).u32(l.startMillis());
        } else if (m instanceof RelayMessage.Abort a) {
            o.i64(a.requestId());
        } else if (m instanceof RelayMessage.Output x) {
            o.u8(x.stream()).bytes(x.data());
        } else if (m instanceof RelayMessage.Exited x) {
            o.u32(x.exitCode());
        } else if (m instanceof RelayMessage.Ping p) {
            o.str(p.from());
        } else if (m instanceof RelayMessage.Pong p) {
            o.str(p.host());
        } else if (m instanceof RelayMessage.Failure f) {
            o.str(f.message());
        } else if (m instanceof RelayMessage.Configure c) {
            o.str(c.hostname());
        } else if (m instanceof RelayMessage.Networks n) {
            o.str(n.ncclSocketIfname());
        } else if (m instanceof RelayMessage.AgentKeySpent || m instanceof RelayMessage.Registered
                || m instanceof RelayMessage.Started) {
            // no body
        } else if (m instanceof RelayMessage.PrivateFile f) {
            o.str(f.envName()).bytes(f.content());
        } else if (m instanceof RelayMessage.FileStored f) {
            o.str(f.envName()).str(f.problem());
        } else if (m instanceof RelayMessage.NodeStore n) {
            o.str(n.jobId());
        } else if (m instanceof RelayMessage.AgentKeyOpen k) {
            o.str(k.label());
        } else if (m instanceof RelayMessage.RankEnded r) {
            o.u32(r.generation()).u32(r.rank());
        } else {
            throw new IllegalArgumentException("no relay wire encoding for " + m.getClass());
        }
    }

    @Override
    public RelayMessage decode(int type, BodyIn in) throws WireException {
        return switch (type) {
            case REGISTER -> {
                String host = in.str();
                String hostname = in.str();
                List<Endpoint> eps = in.endpoints();
                int n = in.count(10);
                List<NicAddress> nics = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    nics.add(new NicAddress(in.str(), in.str(), in.u32(), in.u8() != 0));
                }
                yield new RelayMessage.Register(host, hostname, eps, nics);
            }
            case HEARTBEAT -> new RelayMessage.Heartbeat(in.i64());
            case PROBE_REQUEST -> {
                int n = in.count(8);
                Map<String, List<Endpoint>> peers = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    peers.put(in.str(), in.endpoints());
                }
                yield new RelayMessage.ProbeRequest(peers, in.u32());
            }
            case PROBE_REPORT -> {
                String host = in.str();
                int n = in.count(8);
                Map<String, List<String>> r = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    r.put(in.str(), in.strs());
                }
                yield new RelayMessage.ProbeReport(host, r);
            }
            case SHUTDOWN -> new RelayMessage.Shutdown(in.str());
            case LOOKUP -> new RelayMessage.Lookup(in.str());
            case LOOKUP_REPLY -> new RelayMessage.LookupReply(in.str(), in.endpoints());
            case EXEC -> new RelayMessage.Exec(in.i64(), NativeText.decode(in.bytes()));
            case ABORT -> new RelayMessage.Abort(in.i64());
            case OUTPUT -> new RelayMessage.Output(in.u8(), in.bytes());
            case EXITED -> new RelayMessage.Exited(in.u32());
            case PING -> new RelayMessage.Ping(in.str());
            case PONG -> new RelayMessage.Pong(in.str());
            case FAILURE -> new RelayMessage.Failure(in.str());
            case CONFIGURE -> new RelayMessage.Configure(in.str());
            case NETWORKS -> new RelayMessage.Networks(in.str());
            case AGENT_KEY_SPENT -> new RelayMessage.AgentKeySpent();
            case PRIVATE_FILE -> new RelayMessage.PrivateFile(in.str(), in.bytes());
            case FILE_STORED -> new RelayMessage.FileStored(in.str(), in.str());
            case NODE_STORE -> new RelayMessage.NodeStore(in.str());
            case AGENT_KEY_OPEN -> new RelayMessage.AgentKeyOpen(in.str());
            case RANK_ENDED -> new RelayMessage.RankEnded(in.u32(), in.u32());
            case REGISTERED -> new RelayMessage.Registered();
            case LAUNCH -> new RelayMessage.Launch(in.i64(), NativeText.decode(in.bytes()), in.u32());
            case STARTED -> new RelayMessage.Started();
            default -> throw new WireException("unknown relay message type " + type);
        };
    }
}
