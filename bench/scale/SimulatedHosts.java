import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.troika.rsh.Liveness;
import org.troika.rsh.agent.AgentKey;
import org.troika.rsh.driver.DriverService;
import org.troika.wire.ClientSession;
import org.troika.wire.Datagrams;
import org.troika.wire.Endpoint;
import org.troika.wire.NicAddress;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import java.time.Duration;
import java.util.Map;
import org.troika.common.ProgressReport;
import org.troika.common.TroikaEnv;
import org.troika.launcher.exec.WorkerNotifier;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.timeline.Timeline;
import org.troika.launcher.watchdog.HangWatch;
import org.troika.launcher.watchdog.ProgressService;
import org.troika.wire.ElasticMessage;
import org.troika.wire.ProgressMessage;

/**
 * bench/scale.sh's simulated hosts and ranks (issue 23.2/23.4), run as a single-file program on the distribution's
 * jars. Each mode is a process of its own, so a service's costs are its own; the job secret ({@code secret} prints a new
 * one) comes on stdin's first line. Services (troika's real classes), each printing {@code ADDR=host:port} first, then
 * for each further stdin line {@code heap} its heap in use after a full collection ({@code heap BYTES}), until stdin
 * ends:
 * <ul>
 *   <li>{@code driver N}: the driver service (the launcher's liveness: hosts' heartbeat 2 s, timeout 5 s, its own
 *   heartbeat 10 s) expecting hosts {@code h0..h(N-1)}; prints {@code registered K of N in MS ms} (first registration to
 *   the last; K below N when hosts are still missing after max(60, N/50) s) and {@code lost HOST at EPOCH_MS: why} for
 *   each loss; a stdin line {@code agentkey LABEL} opens a launch's agent key for every host, as troika run does
 *   before mpirun starts ({@link DriverService#openAgentKey}), and the driver prints {@code spent} once every host was
 *   looked up with it (the key refused from then on, {@code AgentKeySpent} sent to every task service);</li>
 *   <li>{@code progress N TIMEOUT_S}: the hang watchdog of a launch of N ranks, one on each of N hosts named by the
 *   generator's loopback addresses ({@link HangWatch#start}: its progress service, the interval it gives the ranks,
 *   its checker); prints {@code interval MS} and {@code hang at EPOCH_MS: K stuck} when it declares the hang;</li>
 *   <li>{@code notify N}: an elastic generation's worker notifier for N ranks; prints {@code noted N in MS ms} (first
 *   event to the last) once every rank's leave arrived.</li>
 * </ul>
 * The generator: {@code ROLE ADDR N SECONDS WINDOW SILENT_AFTER SILENT [INTERVAL_MS]} is N clients from one selector
 * thread, each from its own loopback address (127.1.0.1 upwards), connecting without blocking, at most WINDOW at a time
 * not yet past the service's hello (WINDOW = N: all at once), speaking the real protocol ({@link ClientSession}); a
 * client the service ends or answers busy before it is in connects again after a random back-off, as troika's clients
 * do. Roles:
 * <ul>
 *   <li>{@code hosts}: task services: hello, Register (with the host's address as its service endpoint), the driver's
 *   Registered, then a heartbeat every 2 s;</li>
 *   <li>{@code agents}: one launch, as the launch agents of a tree launch do it wherever they run
 *   ({@code troika-rsh HOST ...}): each of the N hosts is looked up once at the driver with the launch's agent key
 *   (the label comes as the last argument: {@code agents ADDR N SECONDS WINDOW 0 0 LABEL}); the reply must name the
 *   host's registered endpoint. Then the host's fake daemon connects back from the host's address to this process's
 *   own listener (the HNP, as an Open MPI daemon calls home) and says its name. The host's task service running the
 *   daemon is the host's own work, not simulated. Prints {@code connected N ...} once every lookup was answered and
 *   {@code daemons N in MS ms} (first lookup's connect to the last daemon's call home), then ends.</li>
 * </ul>
 * ({@code ranks ADDR N SECONDS WINDOW SILENT_AFTER SILENT INTERVAL_MS} is N ranks reporting progress by datagram:
 * {@link #ranks}; {@code leaves ADDR N ...} N ranks leaving an elastic generation by datagram: {@link #leaves}.) It prints {@code connected N retried R in MS ms} (first connect to the last client in: registered, first report
 * written, noted), {@code gaveup G} for the leaves, and SILENT_AFTER s later stops the periodic frames of the last
 * SILENT clients, keeping their connections, printing {@code silent NAME last EPOCH_MS} for each; it ends after SECONDS.
 */
public final class SimulatedHosts {
    /** How long a leaving rank waits to be noted ({@code DriverReporter.LEAVE_TIMEOUT_MS}). */
    private static final long LEAVE_PATIENCE_MS = 5_000;

    public static void main(String[] args) throws Exception {
        if (args[0].equals("secret")) {
            System.out.println(Secret.generate().encode());
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        Secret secret = Secret.decode(in.readLine());
        switch (args[0]) {
            case "driver" -> driver(secret, Integer.parseInt(args[1]), in);
            case "progress" -> progress(secret, Integer.parseInt(args[1]), Integer.parseInt(args[2]), in);
            case "notify" -> notify(secret, Integer.parseInt(args[1]), in);
            case "leaves" -> leaves(WorkerNotifier.workerKey(secret), Endpoint.parseList(args[1], "ADDR").get(0),
                    Integer.parseInt(args[2]));
            case "ranks" -> ranks(ProgressService.progressKey(secret), Endpoint.parseList(args[1], "ADDR").get(0),
                    Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[5]),
                    Integer.parseInt(args[6]), Integer.parseInt(args[7]));
            default -> {
                Role role = switch (args[0]) {
                    case "hosts" -> new Hosts(secret);
                    case "agents" -> new Agents(AgentKey.derive(secret, args[7]), Integer.parseInt(args[2]));
                    default -> throw new IllegalArgumentException("unknown mode " + args[0]);
                };
                new Generator(role, Endpoint.parseList(args[1], "ADDR").get(0), Integer.parseInt(args[2]),
                        Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                        Integer.parseInt(args[6])).run();
            }
        }
    }

    /** The generator's client {@code id}'s own loopback address (127.1.0.1 upwards). */
    static InetAddress address(int id) throws IOException {
        int a = id + 1;
        return InetAddress.getByAddress(new byte[] {127, (byte) (1 + (a >> 16)), (byte) (a >> 8), (byte) a});
    }

    private static void driver(Secret secret, int n, BufferedReader in) throws Exception {
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add("h" + i);
        }
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        java.util.concurrent.CountDownLatch all = new java.util.concurrent.CountDownLatch(n);
        try (DriverService d = new DriverService(secret, InetAddress.getByName("127.0.0.1"), names, Liveness.HEARTBEAT,
                Liveness.TIMEOUT, Liveness.DRIVER_HEARTBEAT, (h, why) -> {
                    System.out.println("lost " + h + " at " + System.currentTimeMillis() + ": " + why);
                    System.out.flush();
                })) {
            d.onRegistered(h -> {
                long now = System.nanoTime();
                first.compareAndSet(0, now);
                last.set(now);
                all.countDown();
            });
            System.out.println("ADDR=" + d.endpoint());
            System.out.flush();
            all.await(Math.max(60, n / 50), TimeUnit.SECONDS);
            System.out.println("registered " + (n - all.getCount()) + " of " + n + " in "
                    + (last.get() - first.get()) / 1_000_000 + " ms");
            System.out.flush();
            serveHeap(in, label -> d.openAgentKey(AgentKey.derive(secret, label), () -> {
                System.out.println("spent");
                System.out.flush();
            }));
        }
    }

    /** The hang watchdog of a launch of {@code n} ranks, one per host, each host one of the generator's addresses. */
    private static void progress(Secret secret, int n, int timeoutSeconds, BufferedReader in) throws Exception {
        List<HostSlots> hosts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            hosts.add(new HostSlots(address(i).getHostAddress(), 1));
        }
        HostPlan plan = HostPlan.assign("bench", hosts, n);
        RunSettings settings = RunSettings.of(List.of("x")).with(RunOptionTable.HANG_TIMEOUT,
                Duration.ofSeconds(timeoutSeconds));
        try (HangWatch w = HangWatch.start(settings, Map.of(TroikaEnv.SECRET_KEY, secret.encode()), plan, 0,
                Timeline.off(), new java.io.PrintStream(java.io.OutputStream.nullOutputStream()))) {
            w.arm(r -> {
                System.out.println("hang at " + System.currentTimeMillis() + ": " + r.culprits().size() + " stuck");
                System.out.flush();
            });
            System.out.println("interval " + w.env().get(TroikaEnv.PROGRESS_INTERVAL_MS));
            System.out.println("ADDR=" + w.env().get(TroikaEnv.PROGRESS_ADDR));
            System.out.flush();
            serveHeap(in);
        }
    }

    /** An elastic generation's notifier for {@code n} ranks; says when every rank's leave arrived. */
    private static void notify(Secret secret, int n, BufferedReader in) throws Exception {
        AtomicLong first = new AtomicLong();
        java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger();
        try (WorkerNotifier w = new WorkerNotifier(WorkerNotifier.workerKey(secret), InetAddress.getByName("127.0.0.1"),
                1, n, e -> {
                    long now = System.nanoTime();
                    first.compareAndSet(0, now);
                    if (e instanceof ElasticMessage.RankLeft && left.incrementAndGet() == n) {
                        System.out.println("noted " + n + " in " + (now - first.get()) / 1_000_000 + " ms");
                        System.out.flush();
                    }
                })) {
            System.out.println("ADDR=" + w.endpoint());
            System.out.flush();
            serveHeap(in);
        }
    }

    /**
     * N ranks reporting progress as troika's reporter does: one datagram each, all N at once first, then each rank every
     * {@code intervalMillis} (spread over the interval), the counts moving; SILENT_AFTER s after the first round the
     * last SILENT ranks stop. Sent from one socket (the service does not look at source addresses).
     */
    private static void ranks(Secret key, Endpoint service, int n, int seconds, int silentAfter, int silent,
            long intervalMillis) throws Exception {
        List<Datagrams.Sealer<ProgressMessage>> sealers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            sealers.add(new Datagrams.Sealer<>(Protocol.PROGRESS, key));
        }
        long[] count = new long[n];
        long[] lastMillis = new long[n];
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.connect(service.socketAddress());
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                send(ch, sealers.get(i), i, ++count[i]);
                lastMillis[i] = System.currentTimeMillis();
            }
            long allIn = System.nanoTime();
            System.out.println("connected " + n + " retried 0 in " + (allIn - t0) / 1_000_000 + " ms");
            System.out.println("gaveup 0");
            System.out.flush();
            long interval = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
            long end = allIn + TimeUnit.SECONDS.toNanos(seconds);
            long silenceAt = allIn + TimeUnit.SECONDS.toNanos(silentAfter);
            boolean silenced = false;
            int next = 0; // ranks due in order: rank i at allIn + k * interval + i * interval / n
            long round = allIn + interval;
            while (System.nanoTime() - end < 0) {
                long now = System.nanoTime();
                if (!silenced && now - silenceAt >= 0) {
                    silenced = true;
                    for (int i = n - silent; i < n; i++) {
                        System.out.println("silent rank" + i + " last " + lastMillis[i]);
                    }
                    System.out.flush();
                }
                int reporting = silenced ? n - silent : n;
                while (next < n && now - (round + next * interval / n) >= 0) {
                    if (next < reporting) {
                        send(ch, sealers.get(next), next, ++count[next]);
                        lastMillis[next] = System.currentTimeMillis();
                    }
                    next++;
                }
                if (next == n) {
                    next = 0;
                    round += interval;
                }
                Thread.sleep(5);
            }
        }
    }

    /**
     * N ranks of generation 1 leaving at once as DriverReporter does: each sends its RankLeft datagram, and again after
     * 50-100 ms, 100-200 ms, ... at most 1-2 s, until the notifier's answer for it arrives; a rank not noted 5 s after
     * its first datagram gives up. The ranks are spread over up to 1,000 sockets, each on its own loopback address.
     */
    private static void leaves(Secret key, Endpoint service, int n) throws Exception {
        int k = Math.min(n, 1000);
        Selector selector = Selector.open();
        DatagramChannel[] channels = new DatagramChannel[k];
        List<Datagrams.Opener<ElasticMessage>> openers = new ArrayList<>(k);
        for (int h = 0; h < k; h++) {
            channels[h] = DatagramChannel.open();
            channels[h].bind(new InetSocketAddress(address(h), 0));
            channels[h].connect(service.socketAddress());
            channels[h].configureBlocking(false);
            channels[h].register(selector, SelectionKey.OP_READ, h);
            openers.add(new Datagrams.Opener<>(Protocol.ELASTIC, key, 4));
        }
        byte[][] datagram = new byte[n][];
        long[] sender = new long[n];
        java.util.Map<Long, Integer> bySender = new java.util.HashMap<>(2 * n);
        for (int i = 0; i < n; i++) {
            Datagrams.Sealer<ElasticMessage> sealer = new Datagrams.Sealer<>(Protocol.ELASTIC, key);
            datagram[i] = sealer.seal(new ElasticMessage.RankLeft(1, i, 75));
            sender[i] = sealer.sender();
            bySender.put(sender[i], i);
        }
        long[] next = new long[n];
        long[] pause = new long[n];
        boolean[] done = new boolean[n];
        java.util.Arrays.fill(pause, 50);
        long t0 = System.nanoTime();
        long patience = TimeUnit.MILLISECONDS.toNanos(LEAVE_PATIENCE_MS);
        long lastNoted = t0;
        int noted = 0;
        int gaveUp = 0;
        long retried = 0;
        ByteBuffer in = ByteBuffer.allocate(Datagrams.MAX_DATAGRAM + 1);
        while (noted + gaveUp < n) {
            long now = System.nanoTime();
            for (int i = 0; i < n; i++) {
                if (done[i] || now - (t0 + next[i]) < 0) {
                    continue;
                }
                if (now - t0 >= patience) {
                    done[i] = true;
                    gaveUp++;
                    continue;
                }
                if (next[i] != 0) {
                    retried++;
                }
                channels[i % k].write(ByteBuffer.wrap(datagram[i]));
                next[i] = now - t0 + TimeUnit.MILLISECONDS.toNanos(pause[i]
                        + ThreadLocalRandom.current().nextLong(pause[i]));
                pause[i] = Math.min(pause[i] * 2, 1_000);
            }
            selector.select(5);
            for (SelectionKey key0 : selector.selectedKeys()) {
                int h = (Integer) key0.attachment();
                while (true) {
                    in.clear();
                    if (channels[h].receive(in) == null) {
                        break;
                    }
                    try {
                        if (openers.get(h).open(in.array(), 0, in.position()).message()
                                instanceof ElasticMessage.NotedDatagram nd) {
                            Integer i = bySender.get(nd.sender());
                            if (i != null && !done[i]) {
                                done[i] = true;
                                noted++;
                                lastNoted = System.nanoTime();
                            }
                        }
                    } catch (org.troika.wire.WireException e) {
                        // a repeated answer
                    }
                }
            }
            selector.selectedKeys().clear();
        }
        System.out.println("connected " + noted + " retried " + retried + " in " + (lastNoted - t0) / 1_000_000
                + " ms");
        System.out.println("gaveup " + gaveUp);
        System.out.flush();
        for (DatagramChannel c : channels) {
            c.close();
        }
    }

    private static void send(DatagramChannel ch, Datagrams.Sealer<ProgressMessage> sealer, int rank, long c)
            throws IOException {
        ch.write(ByteBuffer.wrap(sealer.seal(new ProgressMessage.Report(new ProgressReport(rank, 0, c, c / 10, c, c,
                "allreduce", "step").encode()))));
    }

    private static void serveHeap(BufferedReader in) throws IOException {
        serveHeap(in, label -> {
            throw new IllegalArgumentException("no agent key here");
        });
    }

    /** Answers {@code heap} lines; {@code agentkey LABEL} lines go to {@code agentKey}. */
    private static void serveHeap(BufferedReader in, java.util.function.Consumer<String> agentKey) throws IOException {
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("agentkey ")) {
                agentKey.accept(line.substring("agentkey ".length()));
                System.out.println("agentkey open");
                System.out.flush();
            } else if (line.equals("heap")) {
                System.gc();
                System.out.println("heap " + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
                System.out.flush();
            }
        }
    }

    /** What one kind of client says; the generator does the connecting, the back-off and the timing. */
    private interface Role {
        ClientSession<?> session(byte[] serverHello) throws IOException;

        /** The frames sent with the client hello. */
        byte[] first(Client c) throws IOException;

        /** Whether the client waits for an answer before it is in; {@link #accept} judges it. */
        default boolean answered() {
            return false;
        }

        /** The answer: whether it lets the client in (false: refused, the client stops). */
        default boolean accept(Client c, Object m) {
            return true;
        }

        /** The interval of the client's periodic frame, in ns; 0 for none. */
        default long interval() {
            return 0;
        }

        default byte[] periodic(Client c) throws IOException {
            throw new UnsupportedOperationException("no periodic frame");
        }

        default String name(Client c) {
            return "rank" + c.id;
        }

        /** After {@code c} is in (its answer accepted). */
        default void after(Client c) throws IOException {}

        /** Whether the generator may end before its time: everything this role does is done. */
        default boolean finished(boolean allIn) {
            return false;
        }
    }

    /** Clients of the relay protocol with {@code key}, whose first frame is {@link #message}. */
    private abstract static class RelayClients implements Role {
        private final Secret key;

        RelayClients(Secret key) {
            this.key = key;
        }

        abstract RelayMessage message(Client c) throws IOException;

        @Override
        public ClientSession<?> session(byte[] hello) throws IOException {
            return new ClientSession<>(Protocol.RELAY, key, hello);
        }

        @Override
        @SuppressWarnings("unchecked")
        public byte[] first(Client c) throws IOException {
            return ((ClientSession<RelayMessage>) c.session).seal(message(c));
        }
    }

    /** Task services: Register, Registered, a heartbeat every 2 s. */
    private static final class Hosts extends RelayClients {
        Hosts(Secret secret) {
            super(secret);
        }

        @Override
        RelayMessage message(Client c) throws IOException {
            return new RelayMessage.Register("h" + c.id, "h" + c.id, List.of(serviceEndpoint(c.id)),
                    List.<NicAddress>of());
        }

        @Override
        public boolean answered() {
            return true;
        }

        @Override
        public boolean accept(Client c, Object m) {
            return m instanceof RelayMessage.Registered;
        }

        @Override
        public long interval() {
            return Liveness.HEARTBEAT.toNanos();
        }

        @Override
        @SuppressWarnings("unchecked")
        public byte[] periodic(Client c) throws IOException {
            return ((ClientSession<RelayMessage>) c.session).seal(new RelayMessage.Heartbeat(c.lastMillis));
        }

        @Override
        public String name(Client c) {
            return "h" + c.id;
        }
    }

    /**
     * Host {@code id}'s task-service endpoint as the simulated services register it: the host's own address (nothing
     * listens there; the agents check that the driver's answer names it).
     */
    static Endpoint serviceEndpoint(int id) throws IOException {
        return new Endpoint(address(id).getHostAddress(), 7);
    }

    /**
     * One launch's agents: a Lookup of each host with the agent key, then the host's fake daemon calls home (a
     * connection from the host's address to {@link #hnp}, its name as a line).
     */
    private static final class Agents extends RelayClients {
        private final int n;
        private final java.nio.channels.ServerSocketChannel hnp;
        private final java.util.concurrent.CountDownLatch daemons;
        private volatile long lastDaemon;

        Agents(Secret agentKey, int n) throws IOException {
            super(agentKey);
            this.n = n;
            this.daemons = new java.util.concurrent.CountDownLatch(n);
            this.hnp = java.nio.channels.ServerSocketChannel.open();
            hnp.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 4096);
            Thread t = new Thread(this::serveHnp, "hnp");
            t.setDaemon(true);
            t.start();
        }

        /** The HNP: accepts the daemons' calls home, each with its host's name; counts those from the right host. */
        private void serveHnp() {
            ByteBuffer line = ByteBuffer.allocate(64);
            try {
                while (true) {
                    try (SocketChannel d = hnp.accept()) {
                        line.clear();
                        while (d.read(line) >= 0 && (line.position() == 0 || line.get(line.position() - 1) != '\n')) {
                            // a few bytes: read until the line ends
                        }
                        String name = new String(line.array(), 0, Math.max(0, line.position() - 1),
                                StandardCharsets.US_ASCII);
                        InetAddress from = ((InetSocketAddress) d.getRemoteAddress()).getAddress();
                        if (name.startsWith("h") && from.equals(address(Integer.parseInt(name.substring(1))))) {
                            lastDaemon = System.nanoTime();
                            daemons.countDown();
                        } else {
                            System.out.println("a daemon called home as " + name + " from " + from);
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the generator ends
            }
        }

        @Override
        RelayMessage message(Client c) {
            return new RelayMessage.Lookup("h" + c.id);
        }

        @Override
        public boolean answered() {
            return true;
        }

        @Override
        public boolean accept(Client c, Object m) {
            try {
                return m instanceof RelayMessage.LookupReply r && r.host().equals("h" + c.id)
                        && r.endpoints().equals(List.of(serviceEndpoint(c.id)));
            } catch (IOException e) {
                return false;
            }
        }

        /** The agent's work is done (it closes, as troika-rsh does once its daemon runs); the daemon calls home. */
        @Override
        public void after(Client c) throws IOException {
            c.channel.close();
            try (SocketChannel d = SocketChannel.open()) {
                d.bind(new InetSocketAddress(address(c.id), 0));
                d.connect(hnp.getLocalAddress());
                d.write(ByteBuffer.wrap(("h" + c.id + "\n").getBytes(StandardCharsets.US_ASCII)));
            }
        }

        @Override
        public boolean finished(boolean allIn) {
            if (!allIn || daemons.getCount() > 0) {
                return false;
            }
            System.out.println("daemons " + n + " in " + (lastDaemon - firstConnect) / 1_000_000 + " ms");
            System.out.flush();
            return true;
        }

        @Override
        public String name(Client c) {
            return "agent of h" + c.id;
        }
    }

    /** When the generator made its first connection (System.nanoTime). */
    private static volatile long firstConnect;

    private static final int CONNECTING = 0, HELLO = 1, ANSWER = 2, ACTIVE = 3, SILENT = 4, GONE = 5;

    /** One simulated client. */
    private static final class Client {
        final int id;
        final InetSocketAddress local;
        SocketChannel channel;
        int state = CONNECTING;
        ClientSession<?> session;
        ByteBuffer in = ByteBuffer.allocate(256);
        long due;
        long backoff = 10;
        long lastMillis;
        long count;

        Client(int id) throws IOException {
            this.id = id;
            this.local = new InetSocketAddress(address(id), 0);
        }
    }

    /** N clients of one role on one selector thread. */
    private static final class Generator {
        private final Role role;
        private final InetSocketAddress to;
        private final int n;
        private final long end;
        private final int window;
        private final long silentAfter;
        private final int silent;
        private final Selector selector = Selector.open();
        private final Client[] clients;
        private final ArrayDeque<Client> toConnect = new ArrayDeque<>();
        /** Clients waiting to connect again, in order of their time (each waits a random back-off). */
        private final java.util.PriorityQueue<Client> retries =
                new java.util.PriorityQueue<>((a, b) -> Long.compare(a.due, b.due));
        /** Clients in, in order of their next periodic frame (each re-armed one interval later: FIFO stays sorted). */
        private final ArrayDeque<Client> periodic = new ArrayDeque<>();
        private int inFlight;
        private int in;
        private int retried;
        private long allIn;
        /** The most a periodic frame went out after its time, in ms (this process starved of CPU). */
        private long maxLate;

        Generator(Role role, Endpoint service, int n, int seconds, int window, int silentAfter, int silent)
                throws IOException {
            this.role = role;
            this.to = new InetSocketAddress(service.address(), service.port());
            this.n = n;
            this.end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            this.window = Math.max(1, window);
            this.silentAfter = TimeUnit.SECONDS.toNanos(silentAfter);
            this.silent = silent;
            this.clients = new Client[n];
            for (int i = 0; i < n; i++) {
                clients[i] = new Client(i);
                toConnect.add(clients[i]);
            }
        }

        void run() throws IOException {
            firstConnect = System.nanoTime();
            boolean silenced = false;
            while (System.nanoTime() - end < 0 && !role.finished(allIn != 0)) {
                long now = System.nanoTime();
                while (inFlight < window && !toConnect.isEmpty()) {
                    connect(toConnect.poll());
                }
                while (!retries.isEmpty() && retries.peek().due - now <= 0 && inFlight < window) {
                    connect(retries.poll());
                }
                long wait = TimeUnit.MILLISECONDS.toNanos(50);
                if (!periodic.isEmpty()) {
                    wait = Math.min(wait, periodic.peek().due - now);
                }
                if (!retries.isEmpty()) {
                    wait = Math.min(wait, retries.peek().due - now);
                }
                long ms = TimeUnit.NANOSECONDS.toMillis(wait);
                if (ms > 0) {
                    selector.select(ms);
                } else {
                    selector.selectNow();
                }
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    Client c = (Client) k.attachment();
                    try {
                        if (k.isValid() && k.isConnectable()) {
                            if (c.channel.finishConnect()) {
                                k.interestOps(SelectionKey.OP_READ);
                                c.state = HELLO;
                            }
                        } else if (k.isValid() && k.isReadable()) {
                            readable(c);
                        }
                    } catch (IOException e) {
                        again(c);
                    }
                }
                periodic();
                if (allIn != 0 && !silenced && System.nanoTime() - allIn - silentAfter >= 0) {
                    silenced = true;
                    // the last SILENT clients fall silent with their connections open (a hung service or rank)
                    for (int i = n - silent; i < n; i++) {
                        if (clients[i].state == ACTIVE) {
                            clients[i].state = SILENT;
                            System.out.println("silent " + role.name(clients[i]) + " last " + clients[i].lastMillis);
                        }
                    }
                    System.out.flush();
                }
            }
            selector.close();
        }

        private void connect(Client c) {
            try {
                c.state = CONNECTING;
                c.in.clear();
                c.session = null;
                c.channel = SocketChannel.open();
                c.channel.configureBlocking(false);
                c.channel.bind(c.local);
                inFlight++;
                if (c.channel.connect(to)) {
                    c.state = HELLO;
                    c.channel.register(selector, SelectionKey.OP_READ, c);
                } else {
                    c.channel.register(selector, SelectionKey.OP_CONNECT, c);
                }
            } catch (IOException e) {
                again(c);
            }
        }

        /** The service ended the connection (refused it, answered busy) before the client was in: try again later. */
        private void again(Client c) {
            if (c.state == CONNECTING || c.state == HELLO) {
                inFlight--;
            }
            try {
                c.channel.close();
            } catch (IOException ignored) {
                // closing
            }
            if (c.state == ACTIVE || c.state == SILENT) {
                c.state = GONE; // the service closed a client that was in: it reports that itself
                return;
            }
            long now = System.nanoTime();
            if (retried++ < 3) {
                System.out.println("retried " + role.name(c));
            }
            c.due = now + TimeUnit.MILLISECONDS.toNanos(c.backoff + ThreadLocalRandom.current().nextLong(c.backoff + 1));
            c.backoff = Math.min(c.backoff * 2, 400);
            c.state = CONNECTING;
            retries.add(c);
        }

        private void readable(Client c) throws IOException {
            if (c.channel.read(c.in) < 0) {
                throw new IOException("closed");
            }
            if (c.state == HELLO && c.in.position() >= ClientSession.SERVER_HELLO_LEN) {
                // a busy hello (ServiceBusyException) ends this attempt like any failure: connect again later
                c.session = role.session(java.util.Arrays.copyOf(c.in.array(), ClientSession.SERVER_HELLO_LEN));
                shift(c, ClientSession.SERVER_HELLO_LEN);
                inFlight--;
                c.state = ANSWER;
                byte[] hello = c.session.clientHello();
                c.lastMillis = System.currentTimeMillis();
                byte[] first = role.first(c);
                write(c, ByteBuffer.allocate(hello.length + first.length).put(hello).put(first).flip());
                if (!role.answered()) {
                    in(c);
                    return;
                }
            }
            if (c.state == ANSWER && c.in.position() >= ClientSession.HEADER) {
                int len = c.session.frameLength(c.in.array(), 0);
                if (c.in.position() < len) {
                    return;
                }
                Object m = c.session.open(c.in.array(), 0);
                if (!role.accept(c, m)) {
                    System.out.println("refused " + role.name(c) + ": " + m);
                    c.state = GONE;
                    c.channel.close();
                    return;
                }
                in(c);
            }
        }

        /** {@code c} is in: registered, its first report written, or its leave noted. */
        private void in(Client c) throws IOException {
            c.state = ACTIVE;
            c.in = null; // whatever the service sends from now on waits in the socket: this side reads nothing more
            c.channel.keyFor(selector).interestOps(0);
            long now = System.nanoTime();
            if (role.interval() > 0) {
                c.due = now + role.interval();
                periodic.add(c);
            }
            in++;
            role.after(c);
            done(now);
        }

        private void done(long now) {
            if (in == n && allIn == 0) {
                allIn = now;
                System.out.println("connected " + in + " retried " + retried + " in " + (now - firstConnect) / 1_000_000
                        + " ms");
                System.out.println("gaveup 0");
                System.out.flush();
            }
        }

        private static void shift(Client c, int consumed) {
            int rest = c.in.position() - consumed;
            System.arraycopy(c.in.array(), consumed, c.in.array(), 0, rest);
            c.in.position(rest);
        }

        private static void write(Client c, ByteBuffer b) throws IOException {
            c.channel.write(b);
            if (b.hasRemaining()) {
                throw new IOException("socket send buffer full");
            }
        }

        /** Sends every periodic frame that is due, and re-arms it one interval later. */
        private void periodic() {
            long now = System.nanoTime();
            for (Client c; (c = periodic.peek()) != null && c.due - now <= 0; ) {
                periodic.poll();
                if (c.state != ACTIVE) {
                    continue;
                }
                try {
                    c.lastMillis = System.currentTimeMillis();
                    long late = (now - c.due) / 1_000_000;
                    if (late > maxLate) {
                        maxLate = late;
                        if (late >= 1000) {
                            System.out.println("late " + role.name(c) + " by " + late + " ms at " + c.lastMillis);
                        }
                    }
                    write(c, ByteBuffer.wrap(role.periodic(c)));
                } catch (IOException e) {
                    again(c);
                    continue;
                }
                c.due += role.interval();
                periodic.add(c);
            }
        }
    }
}
