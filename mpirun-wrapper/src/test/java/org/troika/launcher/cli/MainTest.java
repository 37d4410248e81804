package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.common.exec.NativeText;
import org.troika.launcher.spi.Subcommand;

/** The {@code troika} entry point in-process: exit codes, one-line errors, help, dry-run output. */
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(Map<String, String> env, String... args) {
        Subcommand.Io io = new Subcommand.Io(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env);
        return Main.run(List.of(args), io);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void versionAndHelp() {
        assertEquals(0, run(Map.of(), "--version"));
        // version and git commit are written into build.properties by the build
        assertTrue(out().matches("troika \\d+\\.\\d+\\.\\d+\\S* \\(git ([0-9a-f]{12}(-dirty)?|unknown)\\)\n"), out());
        assertEquals(0, run(Map.of(), "--help"));
        assertTrue(out().contains("run") && out().contains("hosts"), out());
        assertEquals(0, run(Map.of(), "run", "--help"));
        assertTrue(out().contains("--num-proc"), out());
    }

    @Test
    void badInputIsOneLineOnStderrWithExitTwoAndNoStackTrace() {
        assertEquals(2, run(Map.of(), "run", "-H", "a:1,,b:1", "hostname"));
        assertEquals("", out());
        String e = err().strip();
        assertFalse(e.contains("\n"), "one line: " + e);
        assertTrue(e.startsWith("troika: error: ") && e.contains("empty entry"), e);
        assertFalse(e.contains("at org.troika"), e);
    }

    @Test
    void errorLinesEscapeControlCharactersAndStayBounded() {
        assertEquals(2, run(Map.of(), "run", "-H", "a\u001b[31m\nb:1", "hostname"));
        String e = err();
        assertEquals(1, e.lines().count(), e);
        assertTrue(e.contains("'a\\x1b[31m\\nb:1'") && !e.contains("\u001b"), e);
        assertEquals("troika: error: x\\ty\\u2028", Main.errorLine("troika: error: ", "x\ty\u2028"));
        String longLine = Main.errorLine("troika: error: ", "z".repeat(5000));
        assertTrue(longLine.length() < Main.MAX_ERROR_LINE + 40 && longLine.endsWith("more characters)"), longLine);
    }

    @Test
    void noCommandIsAnErrorLineNotHelp() {
        assertEquals(2, run(Map.of()));
        assertEquals("", out());
        assertTrue(err().startsWith("troika: error: no command given; expected one of run, hosts"), err());
        assertEquals(1, err().lines().count(), err());
    }

    @Test
    void verboseShowsTheStackTrace() {
        assertEquals(2, run(Map.of(), "run", "--verbose", "-H", "a", "hostname"));
        assertTrue(err().contains("at org.troika"), err());
    }

    @Test
    void unknownCommandNamesTheChoices() {
        assertEquals(2, run(Map.of(), "lunch"));
        assertTrue(err().contains("unknown command 'lunch'") && err().contains("run"), err());
    }

    /** Issue 21.4: the name is looked up among the loaded backends (here only the built-in mpirun), not an enum. */
    @Test
    void anUnknownLauncherIsOneLineListingTheLoadedBackends() {
        int rc = run(Map.of("PATH", "/usr/bin:/bin", "TROIKA_MPIRUN", "/nonexistent/mpirun"), "run", "--dry-run",
                "--mpi-flavor", "openmpi", "--launcher", "pbsrun", "-H", "a:2", "hostname");
        assertEquals(2, rc, err());
        assertEquals("", out());
        assertEquals("troika: error: --launcher 'pbsrun' is not known; use auto, mpirun (the backends this troika has"
                + " loaded; others come as plugin jars in its lib/)\n", err());
        err.reset();
        assertEquals(2, run(Map.of(), "run", "--launcher", "pbsrun", "--min-np", "1", "--host-discovery-script",
                "/bin/true", "hostname"), err());
        assertTrue(err().startsWith("troika: error: --launcher 'pbsrun' is not known; use auto, mpirun "), err());
    }

    @Test
    void dryRunPrintsOneShellQuotedLineAndRunsNothing() {
        // --mpi-flavor skips the mpirun --version probe; TROIKA_MPIRUN names a launcher that does not exist, so
        // anything that tried to run it would fail.
        int rc = run(Map.of("PATH", "/usr/bin:/bin", "TROIKA_MPIRUN", "/nonexistent/mpirun", "TROIKA_SECRET_KEY", "s3cret"),
                "run", "--dry-run", "--mpi-flavor", "openmpi", "-np", "3", "-H", "a:2,b:2", "echo", "it's");
        assertEquals(0, rc, err());
        String line = out();
        assertEquals(1, line.lines().count(), line);
        assertTrue(line.startsWith("/nonexistent/mpirun "), line);
        assertTrue(line.contains(" -np 3 ") && line.contains("a:2,b:1"), line);
        assertTrue(line.strip().endsWith("echo 'it'\"'\"'s'"), line);
        assertFalse(line.contains("s3cret") || line.contains("TROIKA_SECRET_KEY"), line);
    }

    /** Issue 22: bytes the console charset cannot show were printed as '?'; the plan's line carries them exactly. */
    @Test
    void dryRunPrintsArgumentBytesExactly() {
        byte[] arg = {'h', (byte) 0xE9, 'l', (byte) 0xFF, 'o'}; // Latin-1 "hél", then a byte no charset here decodes
        int rc = run(Map.of("PATH", "/usr/bin:/bin", "TROIKA_MPIRUN", "/nonexistent/mpirun"), "run", "--dry-run",
                "--mpi-flavor", "openmpi", "-np", "1", "-H", "a:1", "echo", NativeText.decode(arg));
        assertEquals(0, rc, err());
        byte[] printed = out.toByteArray();
        byte[] quoted = new byte[arg.length + 3];
        quoted[0] = ' ';
        quoted[1] = '\'';
        System.arraycopy(arg, 0, quoted, 2, arg.length);
        quoted[quoted.length - 1] = '\'';
        byte[] tail = java.util.Arrays.copyOfRange(printed, printed.length - quoted.length - 1, printed.length - 1);
        assertArrayEquals(quoted, tail, out());
        assertEquals('\n', printed[printed.length - 1]);
    }

    @Test
    void hostsCommandPrintsTheRankTable() {
        assertEquals(0, run(Map.of(), "hosts", "-np", "3", "-H", "a:2,b:2"));
        assertEquals(List.of("# hosts from -H: a:2,b:1 (3 ranks)", "# rank host local_rank cross_rank",
                "0 a 0 0", "1 a 1 0", "2 b 0 1"), out().lines().toList());
    }
}
