package org.troika.rsh.task;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.troika.common.TroikaEnv;
import org.troika.common.exec.OutputSink;
import org.troika.common.exec.ProcessSupervisor;
import org.troika.wire.Endpoint;
import org.troika.wire.NicAddress;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;
import org.troika.wire.WireServer;

/**
 * The task service of one host ({@code troika-rsh task-service}).
 *
 * <pre>
 *   driver ◄──control connection── TaskService ◄── agent (troika-rsh HOST words): Exec / Abort
 *          Register, Heartbeat ──►      │      ◄── peer task services: Ping (NIC probes)
 *          ◄── Heartbeat, ProbeRequest, Configure(hostname), Shutdown
 *                                       └── /bin/sh -c WORDS  (orted) via ProcessSupervisor
 * </pre>
 *
 * <ul>
 *   <li>Connects to the driver first; listens on every up IPv4 address that is not loopback (plus the address it used to
 *       reach the driver, which is loopback when everything is local) and announces exactly those endpoints. The listeners
 *       are a {@link WireServer} (hello deadline, bounds on unauthenticated connections, bounded threads): a flood of
 *       connections without the key costs no thread and is closed within the hello deadline.</li>
 *   <li>Runs each request id at most once, streams its output, reports its exit code, and stops it on {@link
 *       RelayMessage.Abort} or when the agent's connection drops (like sshd when its client goes away).</li>
 *   <li>Exits, stopping every command, when the driver says so, closes the connection, or is silent for the liveness
 *       timeout and unreachable (a partition, a dead launcher machine): no orphaned services or daemons. A driver that
 *       is silent while its machine still acknowledges what this service sends ({@link TcpPeer}) is stopped or busy
 *       (Ctrl-Z, {@code SIGSTOP} on troika): the service waits for it, and the job goes on.</li>
 *   <li>Commands get {@link TroikaEnv#DRIVER_ADDR} and {@link TroikaEnv#SECRET_FILE} so that tree-spawned agents
 *       work, but never {@link TroikaEnv#SECRET_KEY}: ranks inherit their daemon's environment. With an agent key the
 *       file (0600 in a 0700 directory, written at the first command) holds that key, not the job secret; the service
 *       accepts the key for one {@link RelayMessage.Exec} (this host's daemon) and deletes the file when the driver
 *       says every daemon has been looked up ({@link RelayMessage.AgentKeySpent}), which is before any rank starts. A
 *       warm relay session (an elastic job's services outlive generations) opens each later launch's key with
 *       {@link RelayMessage.AgentKeyOpen}: one Exec again, a new file at the next command.</li>
 *   <li>Every command runs under its own {@link ProcessSupervisor}, whose tag its processes inherit: stopping a command
 *       or the service ends all of them, daemons that left the command's session included.</li>
 *   <li>Key material a rank needs (the elastic worker key) arrives from the driver as {@link RelayMessage.PrivateFile}:
 *       written 0600 into a private directory of this service on this host, named to commands by its variable, and
 *       removed when the service stops. Nothing comes from a file on the launcher's machine.</li>
 *   <li>An elastic job's node state store on this host ({@link RelayMessage.NodeStore}) is kept between generations but
 *       removed when the service stops without the driver's Shutdown (launcher killed, host partitioned).</li>
 *   <li>The rank processes of fault-tolerant elastic generations under its daemons are watched ({@link RankWatch}); when
 *       one ends the driver hears {@link RelayMessage.RankEnded}, so a dead rank is known even when the MPI's runtime
 *       leaves its survivors waiting.</li>
 *   <li>When the driver sees several hosts share one kernel hostname (fake hosts on one machine), it sends a hostname
 *       and commands then run in a private UTS namespace with it, so Open MPI session directories do not collide.</li>
 * </ul>
 */
public final class TaskService implements AutoCloseable {
    /**
     * Settings of one service.
     *
     * @param agentKey the launch agent key of this launch ({@code AgentKey}), or {@code null}: then tree-spawned
     *     agents get the job secret's file (a service started by hand or by a test)
     * @param prtedGuard the library preloaded into the PRRTE daemons this service starts
     *     ({@link org.troika.common.exec.PrtedGuard#installed}: the installation's, unless turned off), or {@code null}
     */
    public record Config(String host, List<Endpoint> driver, Secret secret, Duration heartbeat, Duration livenessTimeout,
            Map<String, String> baseEnv, Path stateParent, Secret agentKey, Path prtedGuard) {
        public Config {
            driver = List.copyOf(driver);
            baseEnv = Map.copyOf(baseEnv);
        }

        /** Without the PRRTE daemon guard. */
        public Config(String host, List<Endpoint> driver, Secret secret, Duration heartbeat, Duration livenessTimeout,
                Map<String, String> baseEnv, Path stateParent, Secret agentKey) {
            this(host, driver, secret, heartbeat, livenessTimeout, baseEnv, stateParent, agentKey, null);
        }

        /** Without an agent key. */
        public Config(String host, List<Endpoint> driver, Secret secret, Duration heartbeat, Duration livenessTimeout,
                Map<String, String> baseEnv, Path stateParent) {
            this(host, driver, secret, heartbeat, livenessTimeout, baseEnv, stateParent, null, null);
        }
    }

    private final Config config;
    private volatile WireServer<RelayMessage> server;
    private final Map<Long, ProcessSupervisor> running = new ConcurrentHashMap<>();
    private final Set<Long> seenRequests = ConcurrentHashMap.newKeySet();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "task-service");
        t.setDaemon(true);
        return t;
    });
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile String stopReason;
    private volatile boolean stopping;
    private volatile String privateHostname;
    private volatile String ncclSocketIfname;
    private WireChannel<RelayMessage> control;
    /** The key file for the commands' agents: written at the first command, never after the key was spent. */
    private Path secretFile;
    private boolean keyFileDone;
    /**
     * The launch agent key now accepted ({@code null} without agent keys): the one this service started with, then
     * each {@link RelayMessage.AgentKeyOpen}'s (a warm relay session's next launch).
     */
    private volatile Secret agentKey;
    /** Whether the agent key still opens one Exec. */
    private final java.util.concurrent.atomic.AtomicBoolean agentExecLeft =
            new java.util.concurrent.atomic.AtomicBoolean(true);
    /** Every command this service started, finished or not: {@link #stop} ends what each left behind. */
    private final Set<ProcessSupervisor> started = ConcurrentHashMap.newKeySet();
    /** Commands this service stopped (abort, agent gone, shutdown): their exit codes are normalised. */
    private final java.util.Set<ProcessSupervisor> terminated = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private List<Endpoint> endpoints = List.of();
    /** The ranks of fault-tolerant generations under this service's daemons: their ends go to the driver. */
    private final RankWatch rankWatch = new RankWatch(
            () -> started.stream().map(ProcessSupervisor::pid).toList(), this::rankEnded);

    public TaskService(Config config) {
        this.config = config;
        this.agentKey = config.agentKey();
    }

    /** Connects to the driver, opens the listeners and registers. Returns once registered. */
    public TaskService start() throws IOException {
        // the name lookup (may wait on DNS) and the interfaces before connecting: the driver closes a connection whose
        // Register has not arrived within its first-frame deadline
        String hostname = InetAddress.getLocalHost().getHostName();
        List<NicAddress> nics = NicInventory.local();
        control = WireChannel.connectAny(config.driver(), Protocol.RELAY, config.secret(),
                (int) config.livenessTimeout().toMillis());
        InetAddress driverFacing = control.socket().getLocalAddress();
        List<InetAddress> bind = new ArrayList<>();
        for (NicAddress n : nics) {
            if (!n.loopback()) {
                bind.add(InetAddress.getByName(n.address()));
            }
        }
        if (!bind.contains(driverFacing)) {
            bind.add(driverFacing);
        }
        server = WireServer.start("task-service", Protocol.RELAY, config.secret(), bind, WireServer.Limits.DEFAULT,
                this::serve);
        server.acceptAlso(agentKey); // for this host's daemon, once (see serve)
        List<Endpoint> eps = new ArrayList<>(server.endpoints());
        // the driver-facing endpoint first: agents try endpoints in order
        eps.sort((x, y) -> Boolean.compare(!x.address().equals(driverFacing.getHostAddress()),
                !y.address().equals(driverFacing.getHostAddress())));
        endpoints = List.copyOf(eps);
        try {
            register(new RelayMessage.Register(config.host(), hostname, endpoints, nics));
        } catch (IOException | RuntimeException e) {
            server.close();
            control.close();
            throw e;
        }
        pool.submit(this::controlLoop);
        pool.submit(this::heartbeatLoop);
        rankWatch.start();
        return this;
    }

    /**
     * Sends {@code reg} until the driver answers {@link RelayMessage.Registered}. A driver that ends the connection
     * instead (it dropped a hello that came after its hello deadline, as can happen while thousands of hosts register
     * at once) is connected to again after a short random pause, for at most {@link #registerPatience}; a driver that
     * is slow but whose machine acknowledges (stopped, busy) is waited for on the same connection, as a second
     * registration would race the first. A {@link RelayMessage.Failure} is the driver's refusal: no retry.
     */
    private void register(RelayMessage.Register reg) throws IOException {
        long deadline = System.nanoTime() + registerPatience(config.livenessTimeout()).toNanos();
        long backoff = 20;
        while (true) {
            IOException dropped;
            try {
                control.send(reg);
                RelayMessage answer = awaitAnswer(deadline);
                if (answer instanceof RelayMessage.Registered) {
                    return;
                }
                if (answer instanceof RelayMessage.Failure f) {
                    throw new RegisterRefused("the driver refused host " + reg.host() + ": " + f.message());
                }
                dropped = new org.troika.wire.WireException("the driver answered the Register with "
                        + answer.getClass().getSimpleName());
            } catch (RegisterRefused | java.net.SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                dropped = e;
            }
            control.close();
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException("host " + reg.host() + " could not register with the driver within "
                        + registerPatience(config.livenessTimeout()).toMillis() + " ms: " + dropped.getMessage(),
                        dropped);
            }
            try {
                Thread.sleep(Math.min(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(left),
                        backoff + java.util.concurrent.ThreadLocalRandom.current().nextLong(backoff + 1)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while registering");
            }
            backoff = Math.min(backoff * 2, 1000);
            control = WireChannel.connectAny(config.driver(), Protocol.RELAY, config.secret(),
                    (int) config.livenessTimeout().toMillis());
        }
    }

    /** How long a service keeps registering again (the driver gone refuses connections, which ends it sooner). */
    static Duration registerPatience(Duration livenessTimeout) {
        return livenessTimeout.multipliedBy(6);
    }

    /** The driver's first frame, waiting past read timeouts while the driver's machine acknowledges (until deadline). */
    private RelayMessage awaitAnswer(long deadline) throws IOException {
        while (true) {
            try {
                return control.receive();
            } catch (java.net.SocketTimeoutException silent) {
                if (System.nanoTime() - deadline >= 0 || TcpPeer.of(control.socket()) != TcpPeer.State.ACKNOWLEDGING) {
                    throw silent;
                }
            }
        }
    }

    /** The driver refused the registration. */
    private static final class RegisterRefused extends IOException {
        RegisterRefused(String message) {
            super(message);
        }
    }

    /** The endpoints this service listens on (and announced). */
    public List<Endpoint> endpoints() {
        return endpoints;
    }

    /** Blocks until the service stopped; returns why. */
    public String awaitStop() throws InterruptedException {
        stopped.await();
        return stopReason;
    }

    private void controlLoop() {
        try {
            while (true) {
                RelayMessage m;
                try {
                    m = control.receive();
                } catch (java.net.SocketTimeoutException silent) {
                    if (TcpPeer.of(control.socket()) == TcpPeer.State.ACKNOWLEDGING) {
                        // the driver's machine takes everything this service sends: troika is stopped (Ctrl-Z,
                        // SIGSTOP) or busy, not gone; its daemons and ranks go on, and so does this service
                        driverSilences++;
                        continue;
                    }
                    throw silent;
                }
                if (m instanceof RelayMessage.Shutdown s) {
                    stop("driver: " + s.reason());
                    return;
                } else if (m instanceof RelayMessage.ProbeRequest p) {
                    pool.submit(() -> probe(p));
                } else if (m instanceof RelayMessage.Configure c) {
                    privateHostname = c.hostname();
                } else if (m instanceof RelayMessage.Networks n) {
                    ncclSocketIfname = n.ncclSocketIfname();
                } else if (m instanceof RelayMessage.AgentKeySpent) {
                    deleteSecretFile(); // every agent has read it; ranks start only after this
                } else if (m instanceof RelayMessage.AgentKeyOpen k) {
                    control.send(new RelayMessage.FileStored(TroikaEnv.SECRET_FILE, openAgentKey(k.label())));
                } else if (m instanceof RelayMessage.PrivateFile f) {
                    control.send(new RelayMessage.FileStored(f.envName(), storePrivateFile(f)));
                } else if (m instanceof RelayMessage.NodeStore n) {
                    // checked now: a bad id is never turned into a path to delete
                    nodeStore = org.troika.common.NodeStorePaths.directory(org.troika.common.NodeStorePaths.DEFAULT_BASE,
                            n.jobId());
                }
            }
        } catch (IOException e) {
            stop(WireChannel.isTimeout(e) ? "driver silent for " + config.livenessTimeout().toMillis() + " ms and "
                    + "unreachable (what this service sends it is not acknowledged)"
                    : e instanceof EOFException ? "driver closed the connection" : "driver connection: " + e.getMessage());
        }
    }

    /** How often the driver was silent for the liveness timeout while its machine still acknowledged. */
    private volatile int driverSilences;

    /** How often the driver was silent for the liveness timeout while its machine still acknowledged (and was waited for). */
    public int driverSilences() {
        return driverSilences;
    }

    /** Whether the service stopped. */
    public boolean stopped() {
        return stopped.getCount() == 0;
    }

    /** Why the service stopped, or {@code null} while it runs. */
    public String stopReason() {
        return stopReason;
    }

    /** A watched rank's process ended: the driver hears it on the control connection. */
    private void rankEnded(RelayMessage.RankEnded e) {
        try {
            control.send(e);
        } catch (IOException x) {
            stop("driver unreachable: " + x.getMessage());
        }
    }

    private void heartbeatLoop() {
        try {
            while (!stopping) {
                control.send(new RelayMessage.Heartbeat(System.currentTimeMillis()));
                Thread.sleep(config.heartbeat().toMillis());
            }
        } catch (IOException e) {
            stop("driver unreachable: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void probe(RelayMessage.ProbeRequest req) {
        Map<String, Future<List<String>>> pending = new LinkedHashMap<>();
        for (Map.Entry<String, List<Endpoint>> peer : req.peers().entrySet()) {
            pending.put(peer.getKey(), pool.submit(() -> probePeer(peer.getKey(), peer.getValue(), req.timeoutMillis())));
        }
        Map<String, List<String>> reachable = new LinkedHashMap<>();
        for (Map.Entry<String, Future<List<String>>> f : pending.entrySet()) {
            try {
                reachable.put(f.getKey(), f.getValue().get());
            } catch (Exception e) {
                reachable.put(f.getKey(), List.of());
            }
        }
        try {
            control.send(new RelayMessage.ProbeReport(config.host(), reachable));
        } catch (IOException e) {
            stop("driver unreachable: " + e.getMessage());
        }
    }

    /** The addresses of {@code peer} whose service answers a Ping with that peer's name (not ours, not a decoy's). */
    private List<String> probePeer(String peer, List<Endpoint> eps, int timeoutMillis) {
        List<String> ok = new ArrayList<>();
        for (Endpoint e : eps) {
            try (WireChannel<RelayMessage> c = WireChannel.connectAny(List.of(e), Protocol.RELAY, config.secret(),
                    timeoutMillis)) {
                c.send(new RelayMessage.Ping(config.host()));
                if (c.receive() instanceof RelayMessage.Pong p && p.host().equals(peer)) {
                    ok.add(e.address());
                }
            } catch (IOException ignored) {
                // unreachable over this address
            }
        }
        return ok;
    }


    /**
     * A warm relay session's next launch: the key of {@code label} replaces the previous launch's (whose file is
     * deleted) and opens one Exec again. Returns the problem, or "" when in effect. Only a service started with an agent
     * key takes one: a service without one would otherwise go on handing out the job secret.
     */
    synchronized String openAgentKey(String label) {
        if (config.agentKey() == null) {
            return "this task service was started without --agent-label and takes no launch agent keys";
        }
        Secret next;
        try {
            next = org.troika.rsh.agent.AgentKey.derive(config.secret(), label);
        } catch (RuntimeException e) {
            return "bad agent key label: " + e.getMessage();
        }
        Secret.deleteFile(secretFile);
        secretFile = null;
        keyFileDone = false; // written at the next command, as at the start
        agentKey = next;
        agentExecLeft.set(true);
        server.acceptAlso(next);
        return "";
    }

    /** One authenticated connection (an agent, or a peer's probe); {@link WireServer} closes it afterwards. */
    private void serve(WireChannel<RelayMessage> c, RelayMessage m) throws IOException {
        Secret agent = agentKey;
        if (agent != null && c.keyedWith(agent)) {
            // the agent key starts this host's daemon, once; it opens nothing else
            if ((m instanceof RelayMessage.Exec || m instanceof RelayMessage.Launch) && agentExecLeft.compareAndSet(true, false)) {
                server.acceptAlso(null);
                exec(c, m);
            } else {
                c.send(new RelayMessage.Failure("the launch agent key starts one daemon per host"));
            }
        } else if (m instanceof RelayMessage.Ping) {
            c.send(new RelayMessage.Pong(config.host()));
        } else if (m instanceof RelayMessage.Exec || m instanceof RelayMessage.Launch) {
            exec(c, m);
        } else if (m instanceof RelayMessage.Abort a) {
            abort(a.requestId());
            c.send(new RelayMessage.Exited(0));
        } else {
            c.send(new RelayMessage.Failure("unexpected " + m.getClass().getSimpleName() + " at a task service"));
        }
    }

    /**
     * Runs an {@link RelayMessage.Exec} or {@link RelayMessage.Launch}. An Exec (and a Launch whose command ends within
     * its start window) streams output and the exit code to the agent, and a vanished agent stops the command, as sshd
     * does. A Launch whose daemon still runs after the window is handed over: {@link RelayMessage.Started} to the
     * agent, which exits; the daemon stays under this service's supervisor (ended by {@link #stop}), its later output
     * goes to this service's stderr (which the launcher shows as {@code [task-service HOST]}), and so does how it ended.
     */
    private void exec(WireChannel<RelayMessage> c, RelayMessage m) throws IOException {
        long requestId;
        String commandLine;
        long startMillis;
        if (m instanceof RelayMessage.Launch l) {
            requestId = l.requestId();
            commandLine = l.commandLine();
            startMillis = Math.max(0, l.startMillis());
        } else {
            RelayMessage.Exec e = (RelayMessage.Exec) m;
            requestId = e.requestId();
            commandLine = e.commandLine();
            startMillis = -1; // never handed over
        }
        if (!seenRequests.add(requestId)) {
            c.send(new RelayMessage.Failure("request " + requestId + " already ran on " + config.host()));
            return;
        }
        if (stopping) {
            c.send(new RelayMessage.Failure("task service of " + config.host() + " is stopping"));
            return;
        }
        AgentOutput output = new AgentOutput(c);
        ProcessSupervisor p;
        try {
            // the supervisor tags the command's processes: found even after they left setsid -w's session
            p = ProcessSupervisor.start(CommandPlanner.plan(commandLine, privateHostname, childEnv(),
                    config.prtedGuard()),
                    ProcessSupervisor.Options.ofBytes(output.sink(1), output.sink(2)));
        } catch (IOException x) {
            c.send(new RelayMessage.Failure("cannot start the command on " + config.host() + ": " + x.getMessage()));
            return;
        }
        started.add(p);
        running.put(requestId, p);
        java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
        // the agent's connection: Abort, or EOF (agent gone) stops the command while it runs
        Future<?> watcher = pool.submit(() -> {
            try {
                while (true) {
                    if (c.receive() instanceof RelayMessage.Abort) {
                        break;
                    }
                }
            } catch (IOException gone) {
                // agent went away
            }
            if (!finished.get()) {
                terminate(p);
            }
            return null;
        });
        boolean handedOver = false;
        try {
            boolean handsOver = startMillis >= 0;
            long handOverAt = System.nanoTime() + Math.max(0, startMillis) * 1_000_000L;
            Integer code;
            while (true) {
                long left = handsOver ? handOverAt - System.nanoTime() : Long.MAX_VALUE;
                code = p.waitFor(left <= 0 ? Duration.ZERO : Duration.ofNanos(Math.min(left,
                        config.heartbeat().toNanos())));
                if (code != null) {
                    break;
                }
                if (handsOver && System.nanoTime() - handOverAt >= 0 && !terminated.contains(p)) {
                    // the daemon runs: it is this service's from now on; the agent may go (Open MPI's slot frees)
                    finished.set(true);
                    output.detach();
                    handedOver = true;
                    c.send(new RelayMessage.Started());
                    break;
                }
                c.send(new RelayMessage.Heartbeat(System.currentTimeMillis()));
            }
            if (code != null) {
                finished.set(true);
                c.send(new RelayMessage.Exited(terminated.contains(p) ? signalExit(code) : code));
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } catch (IOException x) {
            if (!handedOver) {
                terminate(p);
            }
        } finally {
            watcher.cancel(true);
            if (handedOver) {
                pool.submit(() -> supervise(requestId, p));
            } else {
                running.remove(requestId);
                terminated.remove(p);
            }
        }
    }

    /** Waits for a handed-over daemon and says on this service's stderr how it ended (nothing when it exits 0). */
    private void supervise(long requestId, ProcessSupervisor p) {
        try {
            int code = p.waitFor();
            if (code != 0 && !terminated.contains(p) && !stopping) {
                System.err.println("troika-rsh task-service " + config.host() + ": the MPI daemon of request "
                        + requestId + " exited with code " + code + " after its start");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            running.remove(requestId);
            terminated.remove(p);
        }
    }

    /** A command's output: to its agent while attached, then (a handed-over daemon) to this service's stderr. */
    private static final class AgentOutput {
        private volatile WireChannel<RelayMessage> agent;

        AgentOutput(WireChannel<RelayMessage> agent) {
            this.agent = agent;
        }

        void detach() {
            agent = null;
        }

        /** The command's output exactly as read (orted's own messages; ranks' output goes through mpirun). */
        OutputSink sink(int stream) {
            return (b, off, len) -> {
                WireChannel<RelayMessage> c = agent;
                if (c != null) {
                    try {
                        c.send(new RelayMessage.Output(stream, java.util.Arrays.copyOfRange(b, off, off + len)));
                        return;
                    } catch (IOException e) {
                        if (agent != null) {
                            return; // the agent is gone; the watcher stops the command
                        }
                        // handed over meanwhile: the service's stderr below
                    }
                }
                synchronized (System.err) {
                    System.err.write(b, off, len);
                    System.err.flush();
                }
            };
        }
    }

    /**
     * A stream whose bytes go to the driver as {@link RelayMessage.Output} frames on the control connection, a line per
     * frame (a longer run without a newline in 64 KiB pieces), for a service that detached from its remote shell
     * ({@code --detach}): what it and its handed-over daemons print still reaches the launcher, which tags it with the
     * host. Dropped once the driver is gone (the service then stops).
     */
    public java.io.OutputStream toDriver(int stream) {
        return new DriverOutput(stream);
    }

    private final class DriverOutput extends java.io.OutputStream {
        private static final int PIECE = 64 * 1024;
        private final int stream;
        private final java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();

        DriverOutput(int stream) {
            this.stream = stream;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int start = off;
            for (int i = off; i < off + len; i++) {
                boolean newline = b[i] == '\n';
                if (newline || pending.size() + (i - start) + 1 >= PIECE) {
                    pending.write(b, start, i + 1 - start);
                    send(newline);
                    start = i + 1;
                }
            }
            pending.write(b, start, off + len - start);
        }

        /**
         * Sends what is pending: all of it after a newline; a piece cut for its size ends before a character it would
         * split (a UTF-8 sequence begun in its last three bytes stays for the next piece), so the launcher, which
         * decodes each frame as a line, gets every character whole.
         */
        private void send(boolean newline) {
            byte[] all = pending.toByteArray();
            int cut = newline ? all.length : all.length - incompleteTail(all);
            byte[] data = java.util.Arrays.copyOf(all, cut);
            pending.reset();
            pending.write(all, cut, all.length - cut);
            WireChannel<RelayMessage> c = control;
            if (c != null && !stopping) {
                try {
                    c.send(new RelayMessage.Output(stream, data));
                } catch (IOException gone) {
                    // the driver is gone: the control loop stops the service
                }
            }
        }
    }

    /** How many bytes at the end of {@code b} are a UTF-8 sequence that its lead byte says is not complete yet. */
    static int incompleteTail(byte[] b) {
        for (int back = 1; back <= Math.min(3, b.length); back++) {
            int v = b[b.length - back] & 0xff;
            if ((v & 0xc0) == 0x80) {
                continue; // a continuation byte: look further back for its lead
            }
            int needs = v >= 0xf0 ? 4 : v >= 0xe0 ? 3 : v >= 0xc0 ? 2 : 1;
            return needs > back ? back : 0;
        }
        return 0; // no lead byte in the last three: not UTF-8 text, sent as it is
    }

    /** Names a {@link RelayMessage.PrivateFile} may set for commands: troika's own file variables only. */
    private static final java.util.regex.Pattern PRIVATE_FILE_ENV = java.util.regex.Pattern.compile(
            "TROIKA_[A-Z0-9_]+_FILE");

    /**
     * Writes key material from the driver to a new 0600 file in this service's private directory and gives commands
     * its path in {@code envName}; returns the problem, or "" when stored.
     */
    String storePrivateFile(RelayMessage.PrivateFile f) {
        if (!PRIVATE_FILE_ENV.matcher(f.envName()).matches() || f.envName().equals(TroikaEnv.SECRET_FILE)) {
            return "refused " + f.envName() + ": only TROIKA_..._FILE names other than " + TroikaEnv.SECRET_FILE;
        }
        try {
            Path file = privateFile(f.envName());
            org.troika.common.PrivateFiles.write(file, f.content());
            privateFiles.put(f.envName(), file);
            return "";
        } catch (IOException | RuntimeException e) {
            return "cannot write " + f.envName() + " on " + config.host() + ": " + e.getMessage();
        }
    }

    /** The elastic job's node store on this host, removed if the service stops without the driver's Shutdown. */
    private volatile Path nodeStore;

    /** The private directory (0700) of the driver's key files, made at the first one. */
    private Path keyDir;

    private synchronized Path keyDirectory() throws IOException {
        if (keyDir == null) {
            keyDir = org.troika.common.PrivateFiles.createTempDirectory(config.stateParent(), "troika-keys-");
        }
        return keyDir;
    }

    /** Where {@link #storePrivateFile} keeps the file named to commands as {@code envName}. */
    private Path privateFile(String envName) throws IOException {
        return keyDirectory().resolve(envName.toLowerCase(java.util.Locale.ROOT));
    }

    /** The files written by {@link #storePrivateFile}, by variable name. */
    private final Map<String, Path> privateFiles = new ConcurrentHashMap<>();

    /**
     * The file tree-spawned agents read, written on first use (no command, no file: with {@code --launch-agent ssh}
     * nothing is relayed): the agent key when there is one, never the job secret then. {@code null} once deleted.
     */
    private synchronized Path keyFile() throws IOException {
        if (!keyFileDone) {
            keyFileDone = true;
            secretFile = (agentKey != null ? agentKey : config.secret()).writeToPrivateFile(config.stateParent());
        }
        return secretFile;
    }

    /** Deletes the key file (and keeps it from being written later). */
    private synchronized void deleteSecretFile() {
        keyFileDone = true;
        Secret.deleteFile(secretFile);
        secretFile = null;
    }

    private Map<String, String> childEnv() throws IOException {
        Map<String, String> env = new HashMap<>(config.baseEnv());
        TroikaEnv.stripJobSecret(env);
        env.remove(TroikaEnv.SECRET_FILE);
        Path keyFile = keyFile();
        if (keyFile != null) {
            env.put(TroikaEnv.SECRET_FILE, keyFile.toString());
        }
        env.put(TroikaEnv.DRIVER_ADDR, Endpoint.formatList(config.driver()));
        privateFiles.forEach((name, file) -> env.put(name, file.toString()));
        // named before it exists: a rank an elastic world spawns later next to the ranks of a daemon started now
        // inherits this daemon's environment, and the driver sends the exports it reads there just before that spawn
        env.putIfAbsent(TroikaEnv.SPAWN_ENV_FILE, privateFile(TroikaEnv.SPAWN_ENV_FILE).toString());
        if (ncclSocketIfname != null && !ncclSocketIfname.isEmpty()) {
            env.putIfAbsent("NCCL_SOCKET_IFNAME", ncclSocketIfname);
        }
        return env;
    }

    private void abort(long requestId) {
        ProcessSupervisor p = running.get(requestId);
        if (p != null) {
            terminate(p);
        }
    }

    /**
     * The exit code of a command this service terminated. {@code setsid -w} (see {@link CommandPlanner}) exits with the
     * bare signal number when its child was killed, or dies itself (128+N) when the signal reaches it first; both mean
     * "killed by signal N", reported the shell's way as 128+N.
     */
    static int signalExit(int code) {
        return code == org.troika.common.exec.PosixSignal.TERM.number() || code == org.troika.common.exec.PosixSignal.KILL.number()
                ? 128 + code : code;
    }

    /**
     * Ends a command: TERM to everything carrying the command's tag (the inner session behind {@code setsid -w},
     * orted, ranks, daemons they started), then the supervisor's teardown: its group, grace, KILL, and KILL for
     * whatever tagged process is still there.
     */
    private void terminate(ProcessSupervisor p) {
        terminated.add(p);
        p.termTagged(); // the command's own session (behind setsid -w) at once, as sshd ends a session
        try {
            p.terminate(Duration.ofSeconds(3));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops every command and the service; idempotent. {@link #awaitStop()} returns once all commands ended. */
    void stop(String reason) {
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
            stopReason = reason;
        }
        rankWatch.close();
        WireServer<RelayMessage> listening = server;
        if (listening != null) {
            listening.stopAccepting(); // the agents' connections stay open: they get their command's exit code
        }
        // files first: whoever stops this service (a signal after the launcher died) may not wait for the commands
        deleteSecretFile();
        Path keys;
        synchronized (this) {
            keys = keyDir;
        }
        if (keys != null) {
            // the key files the driver sent (ranks read them at their start)
            org.troika.common.PrivateFiles.deleteTreeQuietly(keys);
        }
        Path store = nodeStore;
        // no Shutdown: the launcher died or this host was cut off, and the job will not come back for this copy; the
        // job's final Shutdown: it is over (the end-of-job cleanup then skips this host); any other Shutdown (this host
        // left the job) keeps it for that cleanup
        boolean dropStore = store != null && (!reason.startsWith("driver: ") && !reason.equals("closed")
                || reason.equals("driver: " + RelayMessage.Shutdown.JOB_FINISHED));
        if (dropStore) {
            org.troika.common.PrivateFiles.deleteTreeQuietly(store);
        }
        running.values().parallelStream().forEach(this::terminate);
        // commands that already ended may have left daemons (orted --daemonize, a rank's setsid -f): end them too,
        // with one walk through /proc for all of them (an elastic job's service has started a daemon per generation)
        ProcessSupervisor.closeAll(List.copyOf(started));
        if (dropStore) {
            org.troika.common.PrivateFiles.deleteTreeQuietly(store); // a commit written while its rank was stopping
        }
        try {
            control.close();
        } catch (IOException ignored) {
            // closing
        }
        deleteSecretFile();
        if (listening != null) {
            listening.close();
        }
        pool.shutdownNow();
        stopped.countDown();
    }

    @Override
    public void close() {
        stop("closed");
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
