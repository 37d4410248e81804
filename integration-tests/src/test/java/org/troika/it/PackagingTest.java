package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.testkit.Dist;
import org.troika.testkit.Requires;

/**
 * What a user installs: the tarball of {@code make dist} unpacked into a fresh directory runs the demo and reports
 * its build; the library artifacts in the local Maven repository are fit for a user's build (metadata, flattened
 * POM, sources, javadoc, module name, no test classes); and the example project under {@code examples/java-project}
 * builds against them with its own Maven run and runs with {@code troika run}.
 */
@Tag("integration")
class PackagingTest {
    private static final long TIMEOUT_S = 300;
    private static final Pattern CHECKSUM = Pattern.compile("rank (\\d+) model-checksum ([0-9a-f]+)");

    @TempDir
    Path tmp;

    private static String version() {
        return System.getProperty("troika.version", "0.1.0-SNAPSHOT");
    }

    /** Unpacks the tarball into {@code tmp/install} and returns its {@code bin/}. */
    private Path unpackTarball() throws Exception {
        Path tarball = Dist.home().getParent().resolve("troika-" + version() + ".tar.gz");
        assertTrue(Files.isRegularFile(tarball), tarball + " missing: mvn install (make dist) builds it");
        Path install = Files.createDirectories(tmp.resolve("install"));
        Result untar = run(List.of("tar", "xzf", tarball.toString(), "-C", install.toString()), install, Map.of());
        assertEquals(0, untar.exit, untar.toString());
        return install.resolve("troika-" + version()).resolve("bin");
    }

    /** Only the unpacked bin/, the system's tools (mpirun, java) and a fresh HOME: nothing from the build tree. */
    private Map<String, String> freshEnv(Path bin) throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", bin + ":/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", Files.createDirectories(tmp.resolve("home")).toString());
        String javaHome = System.getenv("JAVA_HOME");
        if (javaHome != null) {
            env.put("JAVA_HOME", javaHome);
        }
        return env;
    }

    @Test
    void tarballInAFreshDirectoryRunsTheDemoAndReportsItsBuild() throws Exception {
        Requires.command("mpirun");
        Path bin = unpackTarball();
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Map<String, String> env = freshEnv(bin);
        Path root = bin.getParent();
        assertAll("tarball layout",
                () -> assertTrue(Files.isExecutable(root.resolve("bin/troika"))),
                () -> assertTrue(Files.isRegularFile(root.resolve("lib/troika-launcher.jar"))),
                () -> assertTrue(Files.isRegularFile(root.resolve("lib/troika-jvm.sh")), "sourced by bin/troika"),
                () -> assertTrue(Files.isRegularFile(root.resolve("docs/batch-systems.md"))),
                () -> assertTrue(Files.isRegularFile(root.resolve("README.md"))),
                () -> assertTrue(Files.isRegularFile(root.resolve("LICENSE"))),
                () -> assertTrue(Files.isRegularFile(root.resolve("examples/java-project/pom.xml"))),
                () -> assertFalse(Files.exists(root.resolve("lib/troika.jsa")), "a CDS archive of another directory"));

        // ProcessBuilder looks commands up on the test's own PATH, so the unpacked ones are named by path; the scripts
        // themselves and everything they start see only the fresh PATH
        Result version = run(List.of(bin.resolve("troika").toString(), "--version"), elsewhere, env);
        assertEquals(0, version.exit, version.toString());
        Result head = run(List.of("git", "rev-parse", "--short=12", "HEAD"), Path.of("").toAbsolutePath(), Map.of());
        String commit = head.exit == 0 ? head.out.strip() : "unknown";
        assertTrue(version.out.matches("troika " + Pattern.quote(version()) + " \\(git " + commit + "(-dirty)?\\)\n"),
                () -> "the version line must name this checkout's HEAD " + commit + " (a tarball built from another"
                        + " commit needs mvn install again):\n" + version);

        Result demo = run(List.of(bin.resolve("troika-demo").toString(), "2"), elsewhere, env);
        assertEquals(0, demo.exit, demo.toString());
        Map<String, String> checksums = new HashMap<>();
        Matcher m = CHECKSUM.matcher(demo.out);
        while (m.find()) {
            checksums.put(m.group(1), m.group(2));
        }
        assertEquals(2, checksums.size(), demo.toString());
        assertEquals(1, new TreeSet<>(checksums.values()).size(), "every rank ends with the same model: " + checksums);
    }

    @ParameterizedTest
    @CsvSource({"troika-common,org.troika.common,org/troika/common/", "troika-wire,org.troika.wire,org/troika/wire/",
            "troika-mpi,org.troika.mpi,org/troika/mpi/", "troika-worker,org.troika.worker,org/troika/worker/",
            // Open MPI's API keeps its package name (programs compiled against Open MPI's mpi.jar link to it)
            "troika-ompi-java,org.troika.ompi.java,mpi/"})
    void publishedArtifactIsFitForAUsersBuild(String artifact, String moduleName, String packageDir)
            throws Exception {
        Path dir = Path.of(System.getProperty("troika.m2"), "org", "troika", artifact, version());
        String base = artifact + "-" + version();
        String pom = Files.readString(dir.resolve(base + ".pom"));
        assertAll(artifact + " POM",
                () -> assertFalse(pom.contains("<parent>"), "consumers need no troika-parent"),
                () -> assertTrue(pom.contains("<name>" + artifact + "</name>"), pom),
                () -> assertTrue(pom.matches("(?s).*<description>[^<]{20,}</description>.*"), pom),
                () -> assertTrue(pom.contains("<url>"), pom),
                () -> assertTrue(pom.contains("<name>Apache License, Version 2.0</name>"), pom),
                () -> assertTrue(pom.matches("(?s).*<scm\\b.*<connection>scm:git:.*</scm>.*"), pom),
                () -> assertTrue(pom.contains("<name>The troika developers</name>"), pom),
                () -> assertFalse(pom.contains("troika-testkit"), "no test-only dependency"),
                () -> assertFalse(pom.contains("${"), "every version and property resolved"));

        List<String> classes = new ArrayList<>();
        try (JarFile jar = new JarFile(dir.resolve(base + ".jar").toFile())) {
            assertEquals(moduleName, jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"));
            jar.stream().map(ZipEntry::getName).filter(n -> n.endsWith(".class")).forEach(classes::add);
        }
        assertFalse(classes.isEmpty());
        assertAll(artifact + " classes",
                classes.stream().map(c -> () -> assertTrue(!c.matches(".*(Test|Tests|IT)(\\$.*)?\\.class")
                        && !c.startsWith("org/troika/testkit/") && !c.startsWith("org/troika/examples/")
                        && (c.startsWith(packageDir) || c.startsWith("META-INF/versions/")), c)));

        try (JarFile sources = new JarFile(dir.resolve(base + "-sources.jar").toFile());
                JarFile javadoc = new JarFile(dir.resolve(base + "-javadoc.jar").toFile())) {
            for (String c : classes) {
                if (c.contains("$") || c.startsWith("META-INF/")) {
                    continue;
                }
                String source = c.replace(".class", ".java");
                assertTrue(sources.getEntry(source) != null, "sources jar lacks " + source);
            }
            assertTrue(javadoc.getEntry("index.html") != null, "javadoc jar without index.html");
            // every public top-level class has its page in the package tree
            long pages = classes.stream().filter(c -> !c.contains("$") && !c.startsWith("META-INF/"))
                    .map(c -> c.replace(".class", ".html")).filter(h -> javadoc.getEntry(h) != null).count();
            assertTrue(pages > 0, "javadoc jar has no class page in the package tree");
        }
    }

    @Test
    void exampleProjectBuildsAgainstTheInstalledArtifactsAndRunsWithTroikaRun() throws Exception {
        Requires.command("mpirun");
        Path mvn = Requires.command("mvn");
        Path project = copyTree(Path.of("..", "examples", "java-project").toAbsolutePath().normalize(),
                tmp.resolve("java-project"));
        List<String> build = new ArrayList<>(List.of(mvn.toString(), "-B", "-q", "package",
                "-Dmaven.repo.local=" + System.getProperty("troika.m2"), "-Dtroika.version=" + version()));
        if ("offline=true".equals(System.getProperty("troika.mvn.offline"))) {
            build.add("-o");
        }
        Map<String, String> env = new HashMap<>(System.getenv());
        Result built = run(build, project, env);
        assertEquals(0, built.exit, built.toString());
        try (Stream<Path> lib = Files.list(project.resolve("target/lib"))) {
            List<String> jars = lib.map(p -> p.getFileName().toString()).sorted().toList();
            assertTrue(jars.contains("troika-mpi-" + version() + ".jar") && jars.contains("troika-worker-" + version()
                    + ".jar") && jars.stream().anyMatch(j -> j.startsWith("jna-")), jars::toString);
        }

        Path bin = unpackTarball();
        Result ran = run(List.of(bin.resolve("troika").toString(), "run", "-np", "2", "java", "-jar",
                "target/troika-hello-1.0.jar"), project, freshEnv(bin));
        assertEquals(0, ran.exit, ran.toString());
        for (int r = 0; r < 2; r++) {
            assertTrue(ran.out.contains("hello from rank " + r + " of 2 on localhost (local rank " + r + "): sum 1 ok"),
                    ran::toString);
        }
    }

    private static Path copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path rel = from.relativize(p);
                if (rel.startsWith("target")) {
                    continue;
                }
                Path target = to.resolve(rel.toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return to;
    }

    private record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Runs a command with exactly {@code env} (empty map: the test's own environment) in {@code dir}. */
    private Result run(List<String> argv, Path dir, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        if (!env.isEmpty()) {
            pb.environment().clear();
            pb.environment().putAll(env);
        }
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                new java.io.File("/dev/null")));
        Process p = pb.start();
        try {
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new AssertionError(argv + " did not finish within " + TIMEOUT_S + " s:\n" + Files.readString(out)
                        + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
