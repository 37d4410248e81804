package org.troika.launcher.mpi;

import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.common.exec.LaunchPlan;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.LaunchContext;
import org.troika.testkit.Requires;

/** Detects the real MPIs of this machine and runs planned commands on localhost (2 ranks, no binding). */
@Tag("integration")
class MpirunPlanIntegrationTest {
    /** {@code dist/src} has {@code bin/troika-rankenv}, the layout of an installed troika. */
    static final Path HOME = Path.of("..", "dist", "src").toAbsolutePath().normalize();

    record Output(int exit, String text) {}

    static Output run(List<String> argv, Map<String, String> env, Duration timeout) {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (env != null) {
            pb.environment().clear();
            pb.environment().putAll(env);
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Output(ProbeResult.NOT_FOUND, e.getMessage());
        }
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return new Output(ProbeResult.TIMED_OUT, out);
            }
            return new Output(p.exitValue(), out);
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            p.destroyForcibly();
        }
    }

    static final CommandRunner RUNNER = (argv, timeout) -> {
        Output o = run(argv, null, timeout);
        return new ProbeResult(o.exit(), o.text());
    };

    @Test
    void detectsDebiansOpenMpi() {
        Requires.command("mpirun.openmpi");
        MpiInstall mpi = FlavorDetector.detect(RUNNER, "mpirun.openmpi");
        assertEquals(MpiFlavor.OPEN_MPI, mpi.flavor());
        assertTrue(mpi.majorVersion() >= 4, mpi::toString);
    }

    @Test
    void detectsDebiansMpich() {
        Requires.command("mpirun.mpich");
        MpiInstall mpi = FlavorDetector.detect(RUNNER, "mpirun.mpich");
        assertEquals(MpiFlavor.MPICH, mpi.flavor());
        assertEquals(4, mpi.majorVersion());
    }

    @Test
    void missingLauncherIsAUsageError() {
        org.junit.jupiter.api.Assertions.assertThrows(org.troika.common.UsageException.class,
                () -> FlavorDetector.detect(RUNNER, "/nonexistent/troika-test-mpirun"));
    }

    @Test
    void openMpiPlanRunsTwoRanksWithRankEnvironment() {
        Requires.command("mpirun.openmpi");
        assertRanksRun("mpirun.openmpi", FlavorDetector.forFlavorName("openmpi"), "[1,0]<stdout>:", "[1,1]<stdout>:");
    }

    @Test
    void mpichPlanRunsTwoRanksWithRankEnvironment() {
        Requires.command("mpirun.mpich");
        assertRanksRun("mpirun.mpich", FlavorDetector.forFlavorName("mpich"), "[0] ", "[1] ");
    }

    /** Every option troika plans for Open MPI 4 at once, run by the real mpirun: it must accept them all. */
    @Test
    void openMpiAcceptsAllPlannedOptions(@TempDir Path tmp) throws IOException {
        Requires.command("mpirun.openmpi");
        Path out = tmp.resolve("out");
        Output o = runAllOptions("mpirun.openmpi", FlavorDetector.forFlavorName("openmpi"),
                allOptions(out).sshPort(22).build());
        assertEquals(0, o.exit(), o.text());
        assertTrue(o.text().contains("<stdout>:nic=lo ib=1"), o.text());
        assertTrue(Files.readString(out.resolve("1/rank.1/stdout")).contains("nic=lo ib=1"));
    }

    @Test
    void mpichAcceptsAllPlannedOptions(@TempDir Path tmp) throws IOException {
        Requires.command("mpirun.mpich");
        Path out = Files.createDirectory(tmp.resolve("out")); // Hydra does not create it
        Output o = runAllOptions("mpirun.mpich", FlavorDetector.forFlavorName("mpich"), allOptions(out).build());
        if (o.exit() == 141 && o.text().isEmpty()) {
            // Seen once in ~500 runs here: with -outfile-pattern, Debian's Hydra 4.0.2 sometimes lets a rank die of
            // SIGPIPE (128+13) on its first write. That is not Hydra rejecting an option, so run the plan once more.
            o = runAllOptions("mpirun.mpich", FlavorDetector.forFlavorName("mpich"), allOptions(out).build());
        }
        assertEquals(0, o.exit(), o.text());
        assertTrue(Files.readString(out.resolve("rank.1.stdout")).contains("nic=lo ib=1"), o.text());
    }

    /** The planned ssh words reach Open MPI's launch agent as separate words before the host name. */
    @Test
    void sshPortAndIdentityReachTheLaunchAgent(@TempDir Path tmp) throws IOException {
        Requires.command("mpirun.openmpi");
        Path argsFile = tmp.resolve("args");
        Path agent = tmp.resolve("agent");
        // records its argv and fails, so mpirun stops without starting anything remote
        Files.writeString(agent, "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + argsFile + "'\nexit 1\n");
        agent.toFile().setExecutable(true);
        RunSettings s = RunSettings.builder().hosts(List.of(new HostSlots("127.0.0.2", 1)), "-H")
                .sshPort(2222).sshIdentityFile(Path.of("/k/id"))
                .mpiArgs(List.of("--mca", "plm_rsh_agent", agent.toString())).command(List.of("hostname")).build();
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TROIKA_MPIRUN", "mpirun.openmpi");
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts(), 1),
                FlavorDetector.forFlavorName("openmpi"), env, null, tmp, n -> true, null);
        LaunchPlan plan = new MpirunCommandBuilder("root".equals(System.getProperty("user.name"))).build(ctx).launch();
        Output o = run(plan.argv(), plan.env(), Duration.ofSeconds(120));
        assertTrue(o.exit() != 0, "the recording agent fails the launch: " + o.text());
        List<String> words = Files.readAllLines(argsFile);
        assertEquals(List.of("-p", "2222", "-i", "/k/id", "127.0.0.2"), words.subList(0, 5), words::toString);
    }

    private static RunSettings.Builder allOptions(Path out) {
        return RunSettings.builder().hosts(List.of(new HostSlots("localhost", 2)), "-H")
                .networkInterfaces(List.of("lo")).tcp(true).outputFilename(out).prefixTimestamp(true)
                .command(List.of("sh", "-c", "echo nic=$NCCL_SOCKET_IFNAME ib=$NCCL_IB_DISABLE"));
    }

    private static Output runAllOptions(String mpirun, MpiInstall mpi, RunSettings s) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TROIKA_MPIRUN", mpirun);
        env.put("OMPI_MCA_hwloc_base_binding_policy", "none");
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts(), 2), mpi, env, null,
                Path.of("/tmp"), n -> true, null);
        boolean root = "root".equals(System.getProperty("user.name"));
        LaunchPlan plan = new MpirunCommandBuilder(root).build(ctx).launch();
        return run(plan.argv(), plan.env(), Duration.ofSeconds(120));
    }

    private static void assertRanksRun(String mpirun, MpiInstall mpi, String tag0, String tag1) {
        RunSettings s = RunSettings.builder().hosts(List.of(new HostSlots("localhost", 2)), "-H")
                .command(List.of("sh", "-c", "echo \"r=$TROIKA_RANK/$TROIKA_SIZE l=$TROIKA_LOCAL_RANK"
                        + " c=$TROIKA_CROSS_RANK/$TROIKA_CROSS_SIZE h=$TROIKA_HOSTNAME s=${TROIKA_SECRET_KEY:-none}\""))
                .build();
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TROIKA_MPIRUN", mpirun);
        env.put("TROIKA_SECRET_KEY", "not-for-ranks");
        env.put("OMPI_MCA_hwloc_base_binding_policy", "none");
        LaunchContext ctx = new LaunchContext(s, HostPlan.assign("-H", s.hosts(), 2), mpi, env, null,
                Path.of("/tmp"), n -> true, HOME);
        boolean root = "root".equals(System.getProperty("user.name"));
        LaunchPlan plan = new MpirunCommandBuilder(root).build(ctx).launch();
        Output o = run(plan.argv(), plan.env(), Duration.ofSeconds(120));
        assertEquals(0, o.exit(), o.text());
        assertTrue(o.text().contains(tag0 + "r=0/2 l=0 c=0/1 h=localhost"), o.text());
        assertTrue(o.text().contains(tag1 + "r=1/2 l=1 c=0/1 h=localhost"), o.text());
        assertTrue(o.text().contains("s=none"), "ranks must not see the secret: " + o.text());
    }
}
