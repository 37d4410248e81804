package org.troika.launcher.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.common.exec.LaunchPlan;
import org.troika.common.exec.SystemCommandRunner;
import org.troika.launcher.hosts.HostResolver;
import org.troika.launcher.relay.HostAddresses;
import org.troika.launcher.relay.RelaySession;
import org.troika.launcher.relay.RemoteShell;
import org.troika.launcher.mpi.FlavorDetector;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.RunSettings;

/**
 * {@code troika doctor}: checks everything a run needs, each with a verdict and the fix, in seconds (every step has a
 * bounded timeout; hosts are checked in parallel, and in parallel with the local checks).
 *
 * <ol>
 *   <li>{@code mpi}: which MPI and flavour ({@link FlavorDetector}, as {@code troika run} detects it);</li>
 *   <li>{@code mpirun}: a 2-rank {@code hostname} job on this machine, planned by the run planner itself;</li>
 *   <li>{@code jdk}: the JDK and whether troika-mpi can use FFM (JDK 22+) or JNA;</li>
 *   <li>{@code java-ranks}: a 2-rank Java job that binds libmpi through troika-mpi and does an allreduce (which
 *       library each rank resolved);</li>
 *   <li>{@code local-disk}: free space in this machine's /tmp and /dev/shm;</li>
 *   <li>{@code allocation}: the host plan as {@code troika run} would see it (flags, hostfile or batch system);</li>
 *   <li>per remote host ({@link HostChecks}): the remote shell, clock skew, free /tmp and /dev/shm, the task
 *       service, its NICs; then the networks every pair of hosts can use, with the reasons.</li>
 * </ol>
 */
public final class Doctor {
    /** Main class of the Java rank check (in troika-worker). */
    static final String MPI_CHECK_MAIN = "org.troika.worker.MpiCheck";
    /** Free space below which /tmp gets a warning. */
    static final long MIN_TMP_BYTES = 100L << 20;
    /** Free space below which /dev/shm gets a warning (Open MPI's shared-memory transport, elastic state). */
    static final long MIN_SHM_BYTES = 64L << 20;

    /**
     * What the doctor needs.
     *
     * @param settings the host options as parsed, or {@code null} when they were bad ({@code settingsError} says why)
     * @param settingsError why the host options are unusable, or {@code null}
     * @param env the caller's environment
     * @param troikaHome the installation, or {@code null} (then the checks that need it are skipped)
     * @param timeout bound of every single step (a probe, a job, a host's remote shell, the services' start)
     * @param probes runs {@code mpirun --version}
     * @param planner plans a static launch exactly as {@code troika run} would (no side effects)
     * @param resolver the host plan for given settings and the batch allocation (if any), as {@code troika run}
     *     resolves them
     */
    public record Inputs(RunSettings settings, String settingsError, Map<String, String> env, Path troikaHome,
            Duration timeout, CommandRunner probes, Function<RunSettings, LaunchPlan> planner,
            Function<RunSettings, HostResolver.Resolved> resolver) {}

    private Doctor() {}

    /** Runs every check; never throws for a broken set-up (that is what the checks report). */
    public static DoctorReport examine(Inputs in) {
        long start = System.nanoTime();
        List<Check> checks = new ArrayList<>();
        // the allocation first: the host checks run in the background while the local ones run here
        HostPlan plan = null;
        String allocationShell = null;
        Check allocation;
        if (in.settings() == null) {
            allocation = Check.fail("allocation", null, in.settingsError(), fixOf(in.settingsError()));
        } else {
            try {
                HostResolver.Resolved resolved = in.resolver().apply(in.settings());
                plan = resolved.plan();
                allocationShell = resolved.allocation() == null ? null : resolved.allocation().remoteShell();
                allocation = Check.ok("allocation", null, plan.size() + " ranks from " + plan.source() + ": "
                        + plan.hostList());
            } catch (UsageException | java.io.UncheckedIOException e) {
                boolean nothingAsked = in.settings().hosts().list().isEmpty() && in.settings().hosts().np() == null;
                allocation = nothingAsked
                        ? Check.ok("allocation", null, "no hosts given and no batch allocation: troika run -np N runs "
                                + "on this machine (give -H/--hostfile to check remote hosts)")
                        : Check.fail("allocation", null, e.getMessage(), fixOf(e.getMessage()));
            }
        }
        MpiInstall mpi = null;
        Check mpiCheck;
        try {
            mpi = in.settings() != null && in.settings().launcher().mpiFlavor() != null
                    ? FlavorDetector.forFlavorName(in.settings().launcher().mpiFlavor())
                    : FlavorDetector.detect(in.probes(), FlavorDetector.mpirunCommand(in.env()));
            mpiCheck = Check.ok("mpi", null, mpi.flavor().displayName()
                    + (mpi.majorVersion() > 0 ? " " + mpi.majorVersion() : "") + " ("
                    + FlavorDetector.mpirunCommand(in.env()) + ")");
        } catch (UsageException e) {
            mpiCheck = Check.fail("mpi", null, "no usable MPI launcher", e.getMessage());
        }
        CompletableFuture<List<Check>> hosts = CompletableFuture.completedFuture(List.of());
        if (plan != null) {
            List<String> remote = HostAddresses.remoteHosts(plan);
            if (remote.isEmpty()) {
                hosts = CompletableFuture.completedFuture(List.of(Check.skip("hosts", null,
                        "every rank runs on this machine: no remote host to check")));
            } else {
                boolean servicesNeeded = mpi != null && RelaySession.servicesWanted(in.settings(), mpi, remote);
                RemoteShell shell = new RemoteShell(in.settings(), allocationShell, in.env());
                hosts = CompletableFuture.supplyAsync(() -> HostChecks.run(shell, remote, in.troikaHome(), in.env(),
                        in.timeout(), servicesNeeded));
            }
        }
        checks.add(mpiCheck);
        if (mpi != null) {
            checks.add(localMpirun(in));
        } else {
            checks.add(Check.skip("mpirun", null, "no MPI launcher"));
        }
        checks.add(jdk());
        checks.add(mpi != null ? javaRanks(in) : Check.skip("java-ranks", null, "no MPI launcher"));
        checks.addAll(localDisk());
        checks.add(allocation);
        checks.addAll(hosts.join());
        return new DoctorReport(checks, Duration.ofNanos(System.nanoTime() - start));
    }

    private static String fixOf(String message) {
        int semi = message == null ? -1 : message.lastIndexOf("; ");
        return semi < 0 ? "fix the host options (see troika run --help)" : message.substring(semi + 2);
    }

    private static RunSettings localJob(List<String> command) {
        return RunSettings.of(command).with(new RunSettings.Hosts(2, List.of(new HostSlots("localhost", 2)), "-H"));
    }

    /** A 2-rank {@code hostname} job planned by the run planner and run with the timeout. */
    static Check localMpirun(Inputs in) {
        LaunchPlan p;
        try {
            p = in.planner().apply(localJob(List.of("hostname")));
        } catch (UsageException e) {
            return Check.fail("mpirun", null, "cannot plan a 2-rank job: " + e.getMessage(), fixOf(e.getMessage()));
        }
        ProbeResult r = new SystemCommandRunner(p.env()).run(p.argv(), in.timeout());
        long lines = r.output().lines().filter(l -> !l.isBlank()).count();
        if (r.ok() && lines >= 2) {
            return Check.ok("mpirun", null, "a 2-rank job ran here (" + p.argv().get(0) + ")");
        }
        String why = r.exitCode() == ProbeResult.TIMED_OUT ? "did not finish in " + in.timeout().toSeconds() + " s"
                : "exit " + r.exitCode() + ": " + RemoteShell.lastLine(r.output());
        return Check.fail("mpirun", null, "a 2-rank job failed (" + why + ")",
                "run it by hand to see the whole error: " + p.render());
    }

    static Check jdk() {
        Runtime.Version v = Runtime.version();
        String home = System.getProperty("java.home");
        if (v.feature() >= 22) {
            return Check.ok("jdk", null, "JDK " + v + " (" + home + "): troika-mpi can use FFM (give ranks "
                    + "--enable-native-access=ALL-UNNAMED; TROIKA_MPI_BACKEND=jna forces JNA)");
        }
        return Check.ok("jdk", null, "JDK " + v + " (" + home + "): troika-mpi uses JNA; FFM needs JDK 22+");
    }

    /** Two Java ranks bind libmpi through troika-mpi and allreduce their ranks. */
    static Check javaRanks(Inputs in) {
        if (in.troikaHome() == null || !Files.isDirectory(in.troikaHome().resolve("lib"))) {
            return Check.skip("java-ranks", null, "not run from the troika distribution (no lib/ to put on ranks' "
                    + "class path)");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (Runtime.version().feature() >= 22) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.addAll(List.of("-cp", in.troikaHome().resolve("lib") + "/*", MPI_CHECK_MAIN));
        LaunchPlan p;
        try {
            p = in.planner().apply(localJob(cmd));
        } catch (UsageException e) {
            return Check.fail("java-ranks", null, "cannot plan: " + e.getMessage(), fixOf(e.getMessage()));
        }
        ProbeResult r = new SystemCommandRunner(p.env()).run(p.argv(), in.timeout().multipliedBy(2));
        List<String> reports = r.output().lines().filter(l -> l.contains("troika-mpi-check ")).map(
                l -> l.substring(l.indexOf("troika-mpi-check ") + "troika-mpi-check ".length())).toList();
        if (r.ok() && reports.size() == 2 && reports.stream().allMatch(l -> l.contains("sum=1"))) {
            return Check.ok("java-ranks", null, "2 Java ranks did an allreduce: " + reports.get(0));
        }
        String why = r.exitCode() == ProbeResult.TIMED_OUT ? "did not finish" : "exit " + r.exitCode() + ": "
                + RemoteShell.lastLine(r.output());
        return Check.fail("java-ranks", null, "Java ranks could not use libmpi (" + why + ")",
                "set TROIKA_LIBMPI to your MPI library (e.g. /usr/lib/x86_64-linux-gnu/libmpi.so.40); run by hand: "
                        + p.render());
    }

    static List<Check> localDisk() {
        List<Check> out = new ArrayList<>();
        out.add(free("local-disk", null, "/tmp", usable(Path.of("/tmp")), MIN_TMP_BYTES));
        out.add(free("local-disk", null, "/dev/shm", usable(Path.of("/dev/shm")), MIN_SHM_BYTES));
        return out;
    }

    private static long usable(Path p) {
        try {
            return Files.getFileStore(p).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    /** A free-space verdict; {@code bytes < 0} means the directory is missing. */
    static Check free(String name, String host, String dir, long bytes, long min) {
        if (bytes < 0) {
            return Check.warn(name, host, dir + " is missing", "create " + dir + " (MPI and troika keep session files there)");
        }
        String detail = dir + ": " + (bytes >> 20) + " MiB free";
        return bytes < min ? Check.warn(name, host, detail, "free space in " + dir + " (at least " + (min >> 20)
                + " MiB), or point TMPDIR elsewhere") : Check.ok(name, host, detail);
    }
}
