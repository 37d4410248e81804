package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.rsh.driver.DriverService;
import org.troika.testkit.Dist;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;
import org.troika.wire.Secret;

/**
 * No rank can get a key that drives troika's services (issue 11): a relay job over namespace hosts, with one rank on
 * the launcher's own machine too, runs {@link SecretProbe} as every rank. Each probe gathers every candidate key from
 * its environment, the files it names, {@code $TMPDIR/troika-*}, {@code /tmp/troika-*} and its ancestors'
 * {@code /proc} entries (environment, command line, open files), then tries them on the driver and every service of
 * this run it can reach. A positive control shows the probe does find and use a key when one is there.
 *
 * <p>The marker directory is under the module's {@code target/}, not {@code /tmp}: fake hosts may have a private /tmp.
 */
@Tag("integration")
class RankSecretTest {
    @TempDir
    Path tmp;
    private Path markers;

    @BeforeEach
    void markerDir() throws Exception {
        markers = Files.createDirectories(Path.of("target", "rank-secret-" + UUID.randomUUID()).toAbsolutePath());
    }

    @AfterEach
    void removeMarkers() throws Exception {
        try (var s = Files.list(markers)) {
            for (Path p : s.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(markers);
    }

    static String probeClassPath() {
        List<String> cp = new ArrayList<>();
        cp.add(Path.of("target", "test-classes").toAbsolutePath().toString());
        Path lib = Dist.home().resolve("lib");
        cp.add(lib.resolve("troika-wire.jar").toString());
        cp.add(lib.resolve("troika-common.jar").toString());
        return String.join(File.pathSeparator, cp);
    }

    static List<String> probe(Path markers, String hosts) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", probeClassPath(),
                SecretProbe.class.getName(), markers.toString(), hosts);
    }

    @Test
    void noRankOnAHostOrOnTheLaunchersMachineCanDriveTroikasServices() throws Exception {
        Requires.root();
        Requires.command("unshare");
        try (NetnsCluster c = NetnsCluster.create("rks", 172, 2)) {
            List<String> hosts = new ArrayList<>(c.hosts().stream().map(NetnsCluster.Host::address).toList());
            String hostList = String.join(",", hosts.stream().map(h -> h + ":1").toList()) + ",localhost:1";
            // routed_radix 1: tree spawn, so the first host's daemon launches the second's through an agent that
            // reads the agent key on that host (the path whose file must be gone before ranks start)
            List<String> args = new ArrayList<>(List.of("--verbose", "-np", "3", "-H", hostList,
                    "--remote-shell", "ip netns exec {host}", "--mpi-args", "-mca routed_radix 1 -mca plm_base_verbose 5"));
            args.addAll(probe(markers, String.join(",", hosts)));
            RunSupport.Result r;
            try (RunSupport run = RunSupport.start(tmp, Map.of(), args.toArray(String[]::new))) {
                r = run.waitFor();
                run.assertNoSurvivors();
            }
            assertEquals(0, r.exitCode(), r.toString());
            List<String> probes = r.outLines().stream().filter(l -> l.contains("probe rank=")).toList();
            assertEquals(3, probes.size(), r.toString());
            probes.forEach(System.out::println);
            // tree spawn happened: the first host's daemon launched the next one through troika-rsh. The daemon's
            // line reaches the launcher through its agent, or (printed after the agent handed the daemon over to the
            // task service and exited) through the service, tagged [task-service HOST]: which one is a race
            String handedOver = "[task-service " + hosts.get(0) + "] ";
            assertTrue(r.err().lines().map(l -> l.startsWith(handedOver) ? l.substring(handedOver.length()) : l)
                    .anyMatch(l -> l.startsWith("[" + hosts.get(0) + ":") && l.contains("plm:rsh: final template argv")),
                    r.err());
            for (String p : probes) {
                assertTrue(p.endsWith("env=[] breaches=[]"), "a rank got at troika's keys: " + p + "\n" + r);
                assertFalse(p.contains("targets=[] "), "the probe found no service to try: " + p);
            }
            try (var s = Files.list(markers)) {
                assertEquals(List.of(), s.toList(), "a rank ran a command through a task service");
            }
            // nothing of the job's keys is left on disk once it is over
            try (var s = Files.list(tmp)) {
                assertEquals(List.of(), s.filter(f -> f.getFileName().toString().startsWith("troika-")).toList());
            }
        }
    }

    @Test
    void theProbeFindsAndUsesAKeyWhenOneIsThere() throws Exception {
        // positive control: a driver whose secret sits in a file named by the probe's environment
        Secret s = Secret.generate();
        Path file = s.writeToPrivateFile(tmp);
        String marker = UUID.randomUUID().toString();
        try (DriverService d = new DriverService(s, InetAddress.getLoopbackAddress(), List.of("h"), Duration.ofSeconds(1),
                Duration.ofSeconds(6), (h, w) -> { })) {
            ProcessBuilder pb = new ProcessBuilder(probe(markers, "h")).redirectErrorStream(true);
            pb.environment().put("TROIKA_SECRET_FILE", file.toString());
            pb.environment().put("TROIKA_DRIVER_ADDR", d.endpoint().toString());
            pb.environment().put(RunSupport.MARKER, marker);
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(120, TimeUnit.SECONDS));
            assertTrue(out.contains("is the job secret at " + d.endpoint()), out);
        } finally {
            Secret.deleteFile(file);
        }
    }
}
