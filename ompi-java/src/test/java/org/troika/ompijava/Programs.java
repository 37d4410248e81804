package org.troika.ompijava;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.Requires;

/**
 * What the integration tests of the drop-in need from outside the project: Open MPI 5.0.7's own {@code mpi.jar}
 * (the reference), the OSU Micro-Benchmarks for Java, a JDK 22+ (FFM ranks, and a javac that reads the reference
 * jar's Java 21 class files), and how ranks run with either backend.
 */
final class Programs {
    /** Open MPI 5.0.7's binding, compiled from Debian trixie's source ({@code ../shared/peers/ompi-java}). */
    static final Path REFERENCE_JAR = Path.of(env("TROIKA_OMPI_JAVA_JAR", "/work/shared/peers/ompi-java/mpi.jar"));
    /** The OSU Micro-Benchmarks for Java, unchanged ({@code ../shared/peers/omb-java}, its folder {@code mpi}). */
    static final Path OMB = Path.of(env("TROIKA_OMB_JAVA", "/work/shared/peers/omb-java"));
    static final Path JDK22 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
    /** The trixie root's {@code libmpi_java.so}, which the reference jar loads. */
    static final String ROOT_LIBRARY_PATH = "/usr/lib/x86_64-linux-gnu";
    /** The program sources of these tests (not a Maven source root: compiled here, against a chosen API jar). */
    static final Path SOURCES = Path.of("src", "test", "programs");

    private Programs() {}

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }

    enum Backend { JNA, FFM }

    /** The launcher and backend combinations every drop-in test runs on. */
    static Stream<org.junit.jupiter.params.provider.Arguments> configurations() {
        return Stream.of(Launcher.values()).flatMap(l -> Stream.of(Backend.values())
                .map(b -> org.junit.jupiter.params.provider.Arguments.of(l, b)));
    }

    static void requireReference() {
        Requires.check(Files.isRegularFile(REFERENCE_JAR), "Open MPI's mpi.jar " + REFERENCE_JAR
                + " is missing: set TROIKA_OMPI_JAVA_JAR to it");
        requireJdk22();
    }

    static void requireJdk22() {
        Requires.check(Files.isExecutable(JDK22.resolve("bin/java")), JDK22 + " (a JDK 22+) is not installed");
    }

    /** Every {@code .java} file under {@code src/test/programs/<dir>}. */
    static List<String> sources(String dir) {
        try (Stream<Path> s = Files.walk(SOURCES.resolve(dir))) {
            return s.filter(p -> p.toString().endsWith(".java")).map(p -> p.toAbsolutePath().toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> omb() {
        try (Stream<Path> s = Files.walk(OMB.resolve("mpi"))) {
            return s.filter(p -> p.toString().endsWith(".java")).map(Path::toString).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Compiles against Open MPI's own jar with the JDK 22+ javac ({@code --release 17}: the class files run on JDK
     * 17 too; JDK 17's javac cannot read the jar's Java 21 class files).
     */
    static void compileAgainstReference(List<String> files, Path out) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(JDK22.resolve("bin/javac").toString(), "--release", "17",
                "-nowarn", "-Xlint:-options", "-cp", REFERENCE_JAR.toString(), "-d", out.toString()));
        cmd.addAll(files);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "javac against " + REFERENCE_JAR + " failed:\n" + output);
    }

    /** Compiles in this JVM against the drop-in (this module's classes and the test class path). */
    static void compileAgainstDropIn(List<String> files, Path out, String extraClassPath) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("-nowarn", "-proc:none", "-cp", MpiJob.testClassPath()
                + (extraClassPath == null ? "" : File.pathSeparator + extraClassPath), "-d", out.toString()));
        args.addAll(files);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = javac.run(null, err, err, args.toArray(String[]::new));
        assertEquals(0, rc, "javac against the drop-in failed:\n" + err.toString(StandardCharsets.UTF_8));
    }

    /** The {@code java} command of a rank with this backend (inside the root for Open MPI 5). */
    static List<String> java(Launcher launcher, Backend backend) {
        if (backend == Backend.JNA) {
            return MpiJob.defaultJava(launcher);
        }
        return List.of(JDK22.resolve("bin/java").toString(), "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    }

    /** Runs {@code main} with troika's drop-in: the test class path (this module, troika-mpi, JNA) plus {@code cp}. */
    static MpiJob.Result runDropIn(Launcher launcher, Backend backend, int np, String cp, String main,
            List<String> args, long timeoutSeconds) {
        if (backend == Backend.FFM) {
            requireJdk22();
        }
        String classPath = MpiJob.testClassPath() + File.pathSeparator + cp;
        return MpiJob.run(launcher, np, java(launcher, backend), classPath, main, args,
                Map.of("TROIKA_MPI_BACKEND", backend.name().toLowerCase(java.util.Locale.ROOT)), timeoutSeconds);
    }

    /**
     * Runs {@code main} on Open MPI 5.0.7's own binding, inside the root ({@code UCX_ERROR_SIGNALS} cleared), with
     * a copy of the reference jar in {@code work} (a folder under /tmp, which the root shares).
     */
    static MpiJob.Result runReference(Path work, int np, String cp, String main, List<String> args,
            long timeoutSeconds) throws IOException {
        requireReference();
        Path jar = Files.copy(REFERENCE_JAR, work.resolve("ompi-mpi.jar"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        // without this, libucs replaces the JVM's SIGSEGV handler and the JVM's routine SIGSEGVs end the rank in
        // signal 6 (what the peer README saw in OSUAllReduce -c); troika's drop-in clears it by itself
        List<String> java = List.of(org.troika.testkit.OpenMpi5Root.JAVA_HOME + "/bin/java", "-XX:+UseSerialGC",
                "-Djava.library.path=" + ROOT_LIBRARY_PATH);
        return MpiJob.run(Launcher.OPEN_MPI_5, List.of("-x", "UCX_ERROR_SIGNALS"), np, java,
                jar + File.pathSeparator + cp, main, args, Map.of("UCX_ERROR_SIGNALS", ""), timeoutSeconds);
    }
}
