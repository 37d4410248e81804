package org.troika.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a Java main class as the ranks of a real MPI job (integration tests of troika-mpi, troika-worker and
 * troika-examples). Open MPI: {@code mpirun --allow-run-as-root --bind-to none --oversubscribe -np N};
 * MPICH: {@code mpirun.mpich -np N} (Hydra); Open MPI 5: the same {@code mpirun} words inside the trixie root
 * ({@link OpenMpi5Root}). Ranks get the test class path.
 */
public final class MpiJob {
    private MpiJob() {}

    /**
     * The environment for jobs that spawn: parents and spawned children are two jobs on this one machine, which Open
     * MPI 5 joins over its TCP BTL. On a machine whose only other interface carries 192.0.2.2/24 and fd00::2/64 the
     * parents found no way to the children ("Unable to find reachable pairing between local and remote interfaces",
     * then a hang to the test's timeout); loopback is the network every job on one machine shares.
     */
    public static final Map<String, String> LOOPBACK_TCP = Map.of("OMPI_MCA_btl_tcp_if_include", "lo");

    /**
     * The MPI under test: the MPIs {@code .ci/run} installs. Open MPI 4.1.4 and MPICH on the host, Open MPI 5.0.7 in
     * the trixie root (every command of that one runs through {@link OpenMpi5Root#command}).
     */
    public enum Launcher {
        OPEN_MPI("mpirun", "mpicc", false),
        MPICH("mpirun.mpich", "mpicc.mpich", false),
        OPEN_MPI_5("mpirun", "mpicc", true);

        private final String command;
        private final String compiler;
        private final boolean inRoot;

        Launcher(String command, String compiler, boolean inRoot) {
            this.command = command;
            this.compiler = compiler;
            this.inRoot = inRoot;
        }

        /** The launcher's name (on PATH on the host, or inside the root). */
        public String command() {
            return command;
        }

        /** The C compiler wrapper of this MPI. */
        public String compiler() {
            return compiler;
        }

        /** Open MPI (4 or 5), as opposed to MPICH. */
        public boolean isOpenMpi() {
            return this != MPICH;
        }

        /** Whether commands of this MPI run inside the Open MPI 5 root. */
        public boolean inRoot() {
            return inRoot;
        }

        /** Skips (outside CI) or fails (under CI) the test when this MPI is not installed. */
        public void require() {
            if (inRoot) {
                OpenMpi5Root.require();
            } else {
                Requires.command(command);
            }
        }

        /** {@code argv} as run for this MPI: unchanged on the host, wrapped to run inside the root otherwise. */
        public List<String> wrap(List<String> argv) {
            return inRoot ? OpenMpi5Root.command(argv) : List.copyOf(argv);
        }

        /** Adapts a child's environment to where this MPI's commands run (the root's PATH, JDK, HOME, ...). */
        public void applyEnvironment(Map<String, String> env) {
            if (inRoot) {
                OpenMpi5Root.applyEnvironment(env);
            }
        }
    }

    /** Exit code and combined stdout+stderr of a finished job. */
    public record Result(int exitCode, String output) {
        public List<String> lines() {
            return output.lines().toList();
        }
    }

    /** This JVM's {@code java} with quick-start flags: what ranks run unless a test asks for another JVM. */
    public static List<String> defaultJava() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Xshare:auto");
    }

    /**
     * The {@code java} ranks of {@code launcher} run by default: this JVM's on the host, the root's own JDK inside the
     * Open MPI 5 root (a distribution JDK of the host keeps its configuration under the host's /etc, which the root
     * does not have; self-contained JDKs such as the JDK 22+ for FFM are visible inside at their host paths).
     */
    public static List<String> defaultJava(Launcher launcher) {
        if (!launcher.inRoot()) {
            return defaultJava();
        }
        List<String> java = new ArrayList<>(defaultJava());
        java.set(0, OpenMpi5Root.JAVA_HOME + "/bin/java");
        return List.copyOf(java);
    }

    /** The argv running {@code <java...> -cp <cp> main args...} as {@code np} ranks; {@code --bind-to none} on shared cores. */
    public static List<String> argv(Launcher launcher, int np, List<String> java, String classPath, String mainClass,
            List<String> args) {
        List<String> argv = new ArrayList<>();
        argv.add(launcher.command());
        if (launcher.isOpenMpi()) {
            argv.addAll(List.of("--allow-run-as-root", "--bind-to", "none", "--oversubscribe"));
        }
        argv.addAll(List.of("-np", Integer.toString(np)));
        argv.addAll(java);
        argv.addAll(List.of("-cp", classPath, mainClass));
        argv.addAll(args);
        return List.copyOf(argv);
    }

    /** The class path of the running tests (Surefire's real one, not its manifest-only booter jar). */
    public static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    /**
     * Runs the job (requires its launcher: skipped outside CI, failed under CI when absent) and waits for it.
     * On timeout the job's processes are killed by pid and an AssertionError carries the output so far.
     */
    public static Result run(Launcher launcher, int np, String mainClass, List<String> args, long timeoutSeconds) {
        return run(launcher, np, defaultJava(launcher), testClassPath(), mainClass, args, Map.of(), timeoutSeconds);
    }

    /** {@link #run(Launcher, int, String, List, long)} with a chosen JVM command, class path and extra environment. */
    public static Result run(Launcher launcher, int np, List<String> java, String classPath, String mainClass,
            List<String> args, Map<String, String> env, long timeoutSeconds) {
        return run(launcher, List.of(), np, java, classPath, mainClass, args, env, timeoutSeconds);
    }

    /** As above, with {@code launcherArgs} right after the launcher's name (e.g. {@code --with-ft ulfm}). */
    public static Result run(Launcher launcher, List<String> launcherArgs, int np, List<String> java, String classPath,
            String mainClass, List<String> args, Map<String, String> env, long timeoutSeconds) {
        launcher.require();
        List<String> argv = new ArrayList<>(argv(launcher, np, java, classPath, mainClass, args));
        argv.addAll(1, launcherArgs);
        ProcessBuilder pb = new ProcessBuilder(launcher.wrap(argv)).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        launcher.applyEnvironment(pb.environment());
        pb.environment().putAll(env);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + argv, e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> copy(p.getInputStream(), out), "mpijob-output");
        reader.start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                kill(p);
                reader.join(10_000);
                throw new AssertionError("MPI job did not finish in " + timeoutSeconds + " s: " + argv + "\n" + text(out));
            }
            reader.join(30_000);
            return new Result(p.exitValue(), text(out));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } finally {
            kill(p);
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        byte[] buf = new byte[8192];
        try (in) {
            for (int n; (n = in.read(buf)) > 0; ) {
                synchronized (out) {
                    out.write(buf, 0, n);
                }
            }
        } catch (IOException e) {
            // the stream closes when the process is killed; what was read is kept
        }
    }

    private static String text(ByteArrayOutputStream out) {
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
