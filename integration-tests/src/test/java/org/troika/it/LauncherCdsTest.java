package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.Dist;

/**
 * bin/troika's class-data archive (lib/troika.jsa, made by bin/troika-mkcds) is mapped only by the JVM that made it: a
 * JVM given another JVM's archive turns class-data sharing off altogether, its own default archive included (0
 * classes from an archive under Temurin 25 before; ~100 ms of every start). Seen with {@code -Xlog:class+load}: the
 * build's JVM loads troika's own classes from the archive's top layer; Temurin 25 loads the JDK's classes from its
 * default archive and troika's from the jars.
 */
@Tag("integration")
class LauncherCdsTest {
    @TempDir
    Path tmp;

    @Test
    void theArchiveIsMappedByTheJvmThatMadeItAndAnotherJvmKeepsItsOwnSharing() throws Exception {
        Path lib = Dist.home().resolve("lib");
        assertTrue(Files.isRegularFile(lib.resolve("troika.jsa")) && Files.isRegularFile(lib.resolve("troika.jsa.jvm")),
                "bin/troika-mkcds made the archive and recorded its JVM at packaging");
        String made = Files.readString(lib.resolve("troika.jsa.jvm")).strip();
        String javaHome = made.substring(0, made.indexOf("/bin/java "));

        List<String> own = classLoads(javaHome, "own");
        assertTrue(own.stream().anyMatch(l -> l.contains("org.troika.launcher.cli.Main source: shared objects file (top)")),
                "the archive's JVM maps troika's classes from it: " + sample(own));

        String other = ExactBytesRunTest.JDK25;
        List<String> foreign = classLoads(other, "foreign");
        long shared = foreign.stream().filter(l -> l.contains("source: shared objects file")).count();
        assertTrue(shared > 500, "another JVM keeps its default archive: " + shared + " classes shared");
        assertEquals(0, foreign.stream().filter(l -> l.contains("(top)")).count(), "and does not map troika's");
    }

    /**
     * bin/troika-rsh maps the agent's archive for an agent and the task service's own for a task service (every host
     * starts one; it loads ~450 classes an agent never does): both made at packaging, each with its JVM recorded.
     */
    @Test
    void theLaunchAgentAndTheTaskServiceEachMapTheirOwnArchive() throws Exception {
        Path lib = Dist.home().resolve("lib");
        for (String a : List.of("troika-rsh.jsa", "troika-task.jsa")) {
            assertTrue(Files.isRegularFile(lib.resolve(a)) && Files.isRegularFile(lib.resolve(a + ".jvm")), a);
        }
        assertTrue(archivesOpened("agent", "--help").contains("Opened archive " + lib.resolve("troika-rsh.jsa") + "."));
        List<String> task = archivesOpened("task", "task-service", "--help");
        assertTrue(task.contains("Opened archive " + lib.resolve("troika-task.jsa") + "."), task::toString);
    }

    /** The archives {@code troika-rsh ARGS} opened (-Xlog:cds), as "Opened archive PATH." lines. */
    private List<String> archivesOpened(String name, String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of(Dist.home().resolve("bin/troika-rsh").toString()));
        argv.addAll(List.of(args));
        Path out = tmp.resolve(name + ".out");
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("TROIKA_RSH_JAVA_OPTS", "-Xlog:cds=info");
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "troika-rsh " + String.join(" ", args) + " ends");
        return Files.readAllLines(out).stream().filter(l -> l.contains("Opened archive "))
                .map(l -> l.substring(l.indexOf("Opened archive "))).toList();
    }

    private List<String> classLoads(String javaHome, String name) throws Exception {
        Path log = tmp.resolve(name + ".txt");
        ProcessBuilder pb = new ProcessBuilder(Dist.troika().toString(), "--version").redirectErrorStream(true)
                .redirectOutput(tmp.resolve(name + ".out").toFile());
        pb.environment().put("JAVA_HOME", javaHome);
        pb.environment().put("TROIKA_JAVA_OPTS", "-Xlog:class+load:file=" + log);
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "troika --version ends");
        assertEquals(0, p.exitValue(), Files.readString(tmp.resolve(name + ".out")));
        return Files.readAllLines(log);
    }

    private static String sample(List<String> lines) {
        return lines.size() + " lines, e.g. " + lines.stream().filter(l -> l.contains("org.troika")).limit(3).toList();
    }
}
