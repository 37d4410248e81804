package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.TroikaEnv;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.task.TaskService;
import org.troika.testkit.Dist;
import org.troika.wire.Secret;

/**
 * The launch agent without a JVM ({@code lib/troika-rsh-agent}, built by bin/troika-mkcds at packaging from
 * rsh-agent/src/main/c) against a real driver and real task services on loopback, each case run through
 * {@code bin/troika-rsh} twice: as shipped (the native agent) and with {@code TROIKA_RSH_NATIVE=off} (the JVM agent).
 * Both must give the same exit code and the same bytes on stdout and stderr; the native one must authenticate every
 * frame and must not need a JVM at all.
 */
@Tag("integration")
class NativeAgentTest {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final Duration LIVENESS = Duration.ofSeconds(5);

    @TempDir Path tmp;
    private final Secret secret = Secret.generate();
    private DriverService driver;
    private final List<TaskService> services = new ArrayList<>();
    private Path secretFile;

    @BeforeEach
    void start() throws Exception {
        assertTrue(Files.isExecutable(Dist.home().resolve("lib/troika-rsh-agent")),
                "bin/troika-mkcds builds lib/troika-rsh-agent at packaging (a C compiler is part of the test set-up)");
        driver = new DriverService(secret, InetAddress.getLoopbackAddress(), List.of("h1", "h2"), HEARTBEAT, LIVENESS,
                (host, why) -> { });
        for (String h : List.of("h1", "h2")) {
            services.add(new TaskService(new TaskService.Config(h, List.of(driver.endpoint()), secret, HEARTBEAT,
                    LIVENESS, System.getenv(), tmp)).start());
        }
        driver.awaitHosts(Duration.ofSeconds(30));
        secretFile = secret.writeToPrivateFile(tmp);
    }

    @AfterEach
    void stop() {
        services.forEach(TaskService::close);
        driver.close();
    }

    record Run(int code, byte[] out, byte[] err) {
        String errText() {
            return new String(err, StandardCharsets.UTF_8);
        }
    }

    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put(TroikaEnv.DRIVER_ADDR, driver.endpoint().toString());
        env.put(TroikaEnv.SECRET_FILE, secretFile.toString());
        env.put(TroikaEnv.LIVENESS_TIMEOUT_MS, "5000");
        return env;
    }

    /** {@code bin/troika-rsh ARGS} with {@code env} over the agent's usual environment; native or the JVM agent. */
    private static Run agent(boolean nativeAgent, List<String> args, Map<String, String> env) throws Exception {
        List<String> argv = new ArrayList<>(List.of(Dist.home().resolve("bin/troika-rsh").toString()));
        argv.addAll(args);
        return run(argv, nativeAgent, env);
    }

    private static Run run(List<String> argv, boolean nativeAgent, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File(
                "/dev/null")));
        pb.environment().remove(TroikaEnv.SECRET_KEY);
        pb.environment().remove("TROIKA_RSH_NATIVE");
        pb.environment().putAll(env);
        if (!nativeAgent) {
            pb.environment().put("TROIKA_RSH_NATIVE", "off");
        }
        Process p = pb.start();
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getErrorStream().readAllBytes();
            } catch (IOException e) {
                return e.toString().getBytes(StandardCharsets.UTF_8);
            }
        });
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "did not finish: " + argv);
        return new Run(p.exitValue(), out, err.join());
    }

    /** Both agents on the same case: equal exit codes and bytes; the native run is returned. */
    private Run both(List<String> args, Map<String, String> env) throws Exception {
        return both(args, env, true);
    }

    /**
     * Like {@link #both(List, Map)}; with {@code sameErr} false only the exit code and stdout must be equal (where the
     * system's words for one failure depend on timing: a refused hello is seen as the connection's end or its reset).
     */
    private Run both(List<String> args, Map<String, String> env, boolean sameErr) throws Exception {
        Run n = agent(true, args, env);
        Run j = agent(false, args, env);
        assertEquals(j.code(), n.code(), "exit code; native stderr: " + n.errText() + " / JVM: " + j.errText());
        assertArrayEquals(j.out(), n.out(), "stdout");
        if (sameErr) {
            assertEquals(j.errText(), n.errText(), "stderr");
            assertArrayEquals(j.err(), n.err(), "stderr bytes");
        }
        return n;
    }

    @Test
    void bothAgentsRelayTheSameBytesOnBothStreamsAndTheExitCode() throws Exception {
        // 300,000 bytes cross many Output frames; the rest are bytes no text decoding keeps
        Run r = both(List.of("h1", "head -c 300000 /dev/zero | tr '\\0' x; printf '\\377\\000\\n'; printf 'e\\376' >&2;"
                + " exit 7"), env());
        assertEquals(7, r.code());
        byte[] expected = new byte[300_003];
        java.util.Arrays.fill(expected, 0, 300_000, (byte) 'x');
        expected[300_000] = (byte) 0xff;
        expected[300_001] = 0;
        expected[300_002] = '\n';
        assertArrayEquals(expected, r.out());
        assertArrayEquals(new byte[] {'e', (byte) 0xfe}, r.err());
    }

    @Test
    void theWordsReachTheRemoteShellByteForByte() throws Exception {
        // words that are no UTF-8 and shell syntax, joined with single spaces and parsed by the remote /bin/sh -c
        for (boolean nativeAgent : List.of(true, false)) {
            Run r = run(List.of("/bin/sh", "-c", "exec \"$0\" h2 printf '%s.' \"$(printf '\\377\\376')\" '\"a  b\"'",
                    Dist.home().resolve("bin/troika-rsh").toString()), nativeAgent, env());
            assertEquals(0, r.code(), r.errText());
            assertArrayEquals(new byte[] {(byte) 0xff, (byte) 0xfe, '.', 'a', ' ', ' ', 'b', '.'}, r.out(),
                    nativeAgent ? "native" : "JVM");
        }
    }

    @Test
    void anOpenMpiDaemonIsHandedOverToItsTaskServiceAndTheAgentExitsZero() throws Exception {
        for (boolean nativeAgent : List.of(true, false)) {
            Path pid = tmp.resolve("daemon-" + nativeAgent);
            long t0 = System.nanoTime();
            Run r = agent(nativeAgent, List.of("h1", "echo $$ >" + pid + "; exec sleep 30 #", "--daemonize"), env());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(0, r.code(), r.errText());
            long daemon = Long.parseLong(Files.readString(pid).strip());
            assertTrue(ProcessHandle.of(daemon).map(ProcessHandle::isAlive).orElse(false),
                    "the daemon runs on after its agent left (" + ms + " ms)");
        }
        // a daemon that fails at once: its output and exit code, as ssh would give them
        Run failed = both(List.of("h2", "echo no such option; exit 3 #", "--tree-spawn"), env());
        assertEquals(3, failed.code());
        assertEquals("no such option\n", new String(failed.out(), StandardCharsets.UTF_8));
    }

    @Test
    void failuresAndBadInputGiveTheJvmAgentsWordsAndCodes() throws Exception {
        assertEquals(255, both(List.of("nohost", "true"), env()).code());
        Map<String, String> wrongKey = env();
        wrongKey.put(TroikaEnv.SECRET_KEY, Secret.generate().encode());
        Run refused = both(List.of("h1", "true"), wrongKey, false);
        assertEquals(255, refused.code());
        assertTrue(refused.errText().startsWith("troika-rsh: cannot reach the troika driver"), refused.errText());
        Map<String, String> noDriver = env();
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            noDriver.put(TroikaEnv.DRIVER_ADDR, "127.0.0.1:" + closed.getLocalPort());
        }
        assertEquals(255, both(List.of("h1", "true"), noDriver).code());
        // what the native agent does not judge itself goes to the JVM agent: one source for these messages
        assertEquals(2, both(List.of("-x", "h1", "true"), env()).code());
        assertEquals(2, both(List.of("h1:2", "true"), env()).code());
        assertEquals(2, both(List.of("h1"), env()).code());
        Map<String, String> badDriver = env();
        badDriver.put(TroikaEnv.DRIVER_ADDR, "nowhere");
        Run bad = both(List.of("h1", "true"), badDriver);
        assertEquals(2, bad.code());
        assertEquals("troika-rsh: error: TROIKA_DRIVER_ADDR 'nowhere' is not ADDRESS:PORT\n", bad.errText());
        Map<String, String> noKey = env();
        noKey.remove(TroikaEnv.SECRET_FILE);
        assertEquals(2, both(List.of("h1", "true"), noKey).code());
    }

    @Test
    void theNativeAgentNeedsNoJvm() throws Exception {
        Map<String, String> noJava = env();
        noJava.put("PATH", tmp.resolve("empty").toString());
        noJava.put("JAVA_HOME", tmp.resolve("no-jdk").toString());
        Run n = agent(true, List.of("h1", "echo relayed"), noJava);
        assertEquals(0, n.code(), n.errText());
        assertEquals("relayed\n", new String(n.out(), StandardCharsets.UTF_8));
        Run j = agent(false, List.of("h1", "echo relayed"), noJava);
        assertFalse(j.code() == 0, "the JVM agent cannot start without java: " + j.errText());
    }

    /**
     * A driver that knows the key but answers with a frame whose MAC is off by one bit: the agent must refuse it
     * before it reads a field, so the command never runs; the same reply sealed correctly runs it (the control that
     * shows this fake driver speaks the protocol).
     */
    @Test
    void aFrameWhoseMacDoesNotVerifyIsRefusedBeforeAnythingRuns() throws Exception {
        List<org.troika.wire.Endpoint> h1 = services.get(0).endpoints();
        for (boolean tamper : List.of(true, false)) {
            Path marker = tmp.resolve("ran-" + tamper);
            try (ServerSocket fake = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
                CompletableFuture<Void> served = CompletableFuture.runAsync(() -> serveOneLookup(fake, h1, tamper));
                Map<String, String> env = env();
                env.put(TroikaEnv.DRIVER_ADDR, "127.0.0.1:" + fake.getLocalPort());
                Run r = agent(true, List.of("h1", "touch " + marker), env);
                served.get(30, TimeUnit.SECONDS);
                if (tamper) {
                    assertEquals(255, r.code());
                    assertEquals("troika-rsh: cannot reach the troika driver at 127.0.0.1:" + fake.getLocalPort()
                            + ": frame MAC does not verify (wrong secret or tampered frame)\n", r.errText());
                    assertFalse(Files.exists(marker), "nothing ran");
                } else {
                    assertEquals(0, r.code(), r.errText());
                    assertTrue(Files.exists(marker), "the correctly sealed reply led to the host's service");
                }
            }
        }
    }

    /** One connection of a fake driver: the hellos, then a LookupReply naming {@code endpoints}. */
    private void serveOneLookup(ServerSocket server, List<org.troika.wire.Endpoint> endpoints, boolean tamper) {
        try (Socket s = server.accept()) {
            byte[] serverNonce = new byte[16];
            new SecureRandom().nextBytes(serverNonce);
            OutputStream out = s.getOutputStream();
            out.write(ByteBuffer.allocate(20).put((byte) 'T').put((byte) 'K').put((byte) 2).put((byte) 1)
                    .put(serverNonce).array());
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] clientHello = new byte[52];
            in.readFully(clientHello);
            byte[] clientNonce = java.util.Arrays.copyOfRange(clientHello, 4, 20);
            byte[] key = Base64.getDecoder().decode(secret.encode());
            assertArrayEquals(mac(key, serverNonce, clientNonce, 0, new byte[0]),
                    java.util.Arrays.copyOfRange(clientHello, 20, 52), "the client's proof of the key");
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            str(body, "h1");
            body.write(ByteBuffer.allocate(4).putInt(endpoints.size()).array());
            for (org.troika.wire.Endpoint e : endpoints) {
                str(body, e.address());
                body.write(ByteBuffer.allocate(4).putInt(e.port()).array());
            }
            byte[] b = body.toByteArray();
            byte[] header = ByteBuffer.allocate(16).put((byte) 'T').put((byte) 'K').put((byte) 2).put((byte) 7)
                    .putLong(0).putInt(b.length).array();
            byte[] headerAndBody = ByteBuffer.allocate(16 + b.length).put(header).put(b).array();
            byte[] frameMac = mac(key, serverNonce, clientNonce, 2, headerAndBody);
            if (tamper) {
                frameMac[7] ^= 1;
            }
            out.write(headerAndBody);
            out.write(frameMac);
            out.flush();
            in.read(); // until the agent closes
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void str(ByteArrayOutputStream o, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        o.write(ByteBuffer.allocate(4).putInt(b.length).array());
        o.write(b);
    }

    /** HMAC-SHA256(key, "troika-wire-2" | relay protocol | nonces | direction | data): the wire protocol's MAC. */
    private static byte[] mac(byte[] key, byte[] serverNonce, byte[] clientNonce, int direction, byte[] data)
            throws Exception {
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(new SecretKeySpec(key, "HmacSHA256"));
        m.update("troika-wire-2".getBytes(StandardCharsets.US_ASCII));
        m.update((byte) 1);
        m.update(serverNonce);
        m.update(clientNonce);
        m.update((byte) direction);
        m.update(data);
        return m.doFinal();
    }
}
