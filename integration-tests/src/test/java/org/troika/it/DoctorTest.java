package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.Dist;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;

/**
 * {@code troika doctor} of the packaged distribution against a healthy set-up of namespace hosts and against broken
 * ones: no mpirun, an unreachable host, a host that cannot reach its peers (no common network), a bad hostfile. Each
 * broken set-up must fail the right check, name the host, give a fix and exit 1; the healthy one exits 0 in seconds.
 */
@Tag("integration")
class DoctorTest {
    private static NetnsCluster cluster;
    @TempDir
    Path tmp;

    @BeforeAll
    static void hosts() throws IOException {
        if (isRoot()) {
            cluster = NetnsCluster.create("doc", 130, 3);
        }
    }

    @AfterAll
    static void down() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    record Result(int exitCode, String out, String err, long millis) {
        /** The verdict of check {@code name} (for {@code host}, or the job-wide one when null) in the JSON output. */
        String verdict(String name, String host) {
            Matcher m = Pattern.compile("\\{\"name\":\"" + Pattern.quote(name) + "\",\"host\":"
                    + (host == null ? "null" : "\"" + Pattern.quote(host) + "\"") + ",\"verdict\":\"([a-z]+)\"")
                    .matcher(out);
            return m.find() ? m.group(1) : "absent";
        }

        @Override
        public String toString() {
            return "exit " + exitCode + " in " + millis + " ms\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    Result doctor(Map<String, String> extraEnv, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(Dist.troika().toString(), "doctor"));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TMPDIR", tmp.toString());
        env.putAll(extraEnv);
        pb.environment().clear();
        pb.environment().putAll(env);
        Path out = tmp.resolve("out");
        Path err = tmp.resolve("err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("troika doctor did not finish in 120 s: " + Files.readString(out));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8), (System.nanoTime() - t0) / 1_000_000);
    }

    private static String hostList(List<String> hosts) {
        return String.join(",", hosts.stream().map(h -> h + ":1").toList());
    }

    @Test
    void aHealthyPairOfHostsPassesEveryCheckInSeconds() throws Exception {
        Requires.root();
        List<String> hosts = List.of(cluster.hosts().get(0).address(), cluster.hosts().get(1).address());
        Result r = doctor(Map.of(), "--json", "-H", hostList(hosts), "--remote-shell", cluster.remoteShell());
        assertEquals(0, r.exitCode(), r.toString());
        for (String check : List.of("mpi", "mpirun", "jdk", "java-ranks", "allocation", "networks")) {
            assertEquals("ok", r.verdict(check, null), check + "\n" + r);
        }
        for (String h : hosts) {
            for (String check : List.of("remote-shell", "clock", "disk", "task-service", "nics")) {
                assertEquals("ok", r.verdict(check, h), check + " " + h + "\n" + r);
            }
        }
        assertTrue(r.out().contains("chosen " + cluster.subnet()), r.toString());
        assertTrue(r.out().contains(cluster.decoySubnet() + ": not used"), "the decoy is named with its reason\n" + r);
        assertTrue(r.millis() < 60_000, "doctor should finish in seconds on a healthy set-up\n" + r);
        System.out.println("troika doctor on 2 healthy namespace hosts: " + r.millis() + " ms");
    }

    @Test
    void anUnreachableHostIsNamedWithTheFixAndFailsTheRun() throws Exception {
        Requires.root();
        String good = cluster.hosts().get(0).address();
        String gone = "10.130.0.99"; // no namespace of that name: the remote shell cannot enter it
        Result r = doctor(Map.of(), "-H", hostList(List.of(good, gone)), "--remote-shell", cluster.remoteShell());
        assertEquals(1, r.exitCode(), r.toString());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("[FAIL] remote-shell (" + gone + ")")), r.toString());
        assertTrue(r.out().contains("fix: check --remote-shell"), r.toString());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("[OK  ] remote-shell (" + good + ")")), r.toString());
    }

    @Test
    void aHostThatCannotReachItsPeerLeavesNoCommonNetwork() throws Exception {
        Requires.root();
        NetnsCluster.Host a = cluster.hosts().get(1);
        NetnsCluster.Host b = cluster.hosts().get(2);
        // b can still reach the launcher (the bridge address), but not a: no network joins the two hosts
        ip("-n", b.netns(), "route", "add", "blackhole", a.address() + "/32");
        try {
            Result r = doctor(Map.of(), "--json", "-H", hostList(List.of(a.address(), b.address())),
                    "--remote-shell", cluster.remoteShell());
            assertEquals(1, r.exitCode(), r.toString());
            assertEquals("ok", r.verdict("task-service", b.address()), r.toString());
            assertEquals("fail", r.verdict("networks", null), r.toString());
            assertTrue(r.out().contains(a.address() + " could not reach " + b.address() + " at " + b.address())
                    || r.out().contains(b.address() + " could not reach " + a.address() + " at " + a.address()), r.toString());
        } finally {
            ip("-n", b.netns(), "route", "del", "blackhole", a.address() + "/32");
        }
    }

    @Test
    void noMpirunFailsTheMpiCheckWithTheInstallLine() throws Exception {
        Result r = doctor(Map.of("TROIKA_MPIRUN", tmp.resolve("no-such-mpirun").toString()), "-np", "2");
        assertEquals(1, r.exitCode(), r.toString());
        assertTrue(r.out().startsWith("[FAIL] mpi: no usable MPI launcher"), r.toString());
        assertTrue(r.out().contains("fix: cannot run '" + tmp.resolve("no-such-mpirun") + "': install Open MPI"), r.toString());
        assertTrue(r.out().contains("[SKIP] mpirun"), r.toString());
    }

    @Test
    void aBadHostfileIsAFindingNotACrash() throws Exception {
        Path hf = tmp.resolve("hosts");
        Files.writeString(hf, "node1 slots=2\nnode2 slots=two\n");
        Result r = doctor(Map.of(), "--hostfile", hf.toString());
        assertEquals(1, r.exitCode(), r.toString());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("[FAIL] allocation: ") && l.contains(hf.toString())),
                r.toString());
        assertTrue(r.out().contains("[OK  ] mpi:"), "the other checks still run\n" + r);
        assertEquals("", r.err(), r.toString());
    }

    private static void ip(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("ip"));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).inheritIO().start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "failed: " + argv);
    }
}
