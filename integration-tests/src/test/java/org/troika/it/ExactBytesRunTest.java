package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.common.exec.NativeText;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;

/**
 * Issue 22, item 2: arguments and environment values reach the ranks byte for byte, whatever the locale, as plain
 * mpirun passes them: UTF-8 ({@code héllo}), bytes that are UTF-8 nowhere ({@code 0xff}) and a Latin-1 file name,
 * under {@code LC_ALL=C} and {@code C.UTF-8}, on Open MPI 4, MPICH and Open MPI 5, on JDK 17 and 25, locally and
 * through the relay's task services on hosts that share nothing. (srun: {@code SlurmClusterTest}.) Before the fix,
 * under {@code LC_ALL=C} every byte above 127 arrived as {@code ?}, and under C.UTF-8 invalid bytes as U+FFFD.
 */
@Tag("integration")
class ExactBytesRunTest {
    static final byte[] UTF8_WORD = {'h', (byte) 0xc3, (byte) 0xa9, 'l', 'l', 'o'};
    static final byte[] RAW_WORD = {'a', (byte) 0xff, (byte) 0xfe, 'b', '\\', 'c'};
    static final byte[] LATIN1_FILE = {'c', 'a', 'f', (byte) 0xe9, '.', 't', 'x', 't'};
    static final byte[] ENV_VALUE = {'x', (byte) 0xe9, (byte) 0xff, ' ', '\n', 'y'};
    static final String JDK25 = "/usr/lib/jvm/temurin-25-jdk-amd64";

    /** Prints {@code exact HEX(arg1)|HEX(arg2)|HEX($XV)|FILE-CONTENT} on one line. */
    static final String RANK = "h() { printf %s \"$1\" | od -An -tx1 | tr -d ' \\n'; }; "
            + "printf 'exact %s|%s|%s|%s\\n' \"$(h \"$1\")\" \"$(h \"$2\")\" \"$(h \"$XV\")\" \"$(cat \"$3\")\"";

    @TempDir
    Path tmp;

    static String exact(byte[] b) {
        return NativeText.decode(b);
    }

    static String expectedLine() {
        HexFormat hex = HexFormat.of();
        return "exact " + hex.formatHex(UTF8_WORD) + "|" + hex.formatHex(RAW_WORD) + "|" + hex.formatHex(ENV_VALUE)
                + "|latin-1 named";
    }

    static List<String> rankArgs(Path fileDir) {
        return List.of("sh", "-c", RANK, "sh", exact(UTF8_WORD), exact(RAW_WORD),
                fileDir + "/" + exact(LATIN1_FILE)); // a String: Path cannot hold it under LC_ALL=C
    }

    /** Writes the Latin-1 named file into {@code dir} (through the shell: the test JVM may not name it). */
    static void latin1File(Path dir) throws Exception {
        Process p = new ProcessBuilder("/bin/sh", "-c", "printf 'latin-1 named' > \"$(printf 'caf\\351.txt')\"")
                .directory(dir.toFile()).inheritIO().start();
        assertEquals(0, p.waitFor());
    }

    static Stream<Arguments> localRuns() {
        List<Arguments> a = new ArrayList<>();
        for (Launcher mpi : Launcher.values()) {
            for (String locale : List.of("C", "C.UTF-8")) {
                a.add(Arguments.of(mpi, locale, ""));
            }
        }
        a.add(Arguments.of(Launcher.OPEN_MPI, "C", JDK25));
        a.add(Arguments.of(Launcher.OPEN_MPI, "C.UTF-8", JDK25));
        return a.stream();
    }

    @ParameterizedTest(name = "{0} LC_ALL={1} {2}")
    @MethodSource("localRuns")
    void argumentsAndEnvironmentReachLocalRanksByteForByte(Launcher mpi, String locale, String javaHome)
            throws Exception {
        if (!javaHome.isEmpty()) {
            Requires.check(Files.isExecutable(Path.of(javaHome, "bin", "java")), "no JDK at " + javaHome);
        }
        latin1File(tmp);
        Map<String, String> env = new java.util.HashMap<>(Map.of("LC_ALL", locale, "XV", exact(ENV_VALUE)));
        if (!javaHome.isEmpty()) {
            env.put("JAVA_HOME", javaHome);
        }
        List<String> args = new ArrayList<>(List.of("-np", "1"));
        args.addAll(rankArgs(tmp));
        try (RunSupport run = RunSupport.start(mpi, tmp, env, args.toArray(String[]::new))) {
            RunSupport.Result r = run.waitFor();
            run.assertNoSurvivors();
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(r.out().contains(expectedLine()), "want " + expectedLine() + "\n" + r);
        }
    }

    /** Through troika-rsh and the task services of three share-nothing hosts (Open MPI 4, relay). */
    @Test
    void argumentsAndEnvironmentReachRelayedRanksByteForByte() throws Exception {
        Requires.root();
        Requires.command("unshare");
        try (NetnsCluster c = NetnsCluster.create("exb", 240, 2)) {
            latin1File(c.sharedHome());
            List<String> args = new ArrayList<>(List.of("-np", "2", "-H",
                    RelayRunTest.hostList(c.hosts().stream().map(NetnsCluster.Host::address).toList()),
                    "--remote-shell", c.remoteShell()));
            args.addAll(rankArgs(c.sharedHome()));
            for (String locale : List.of("C", "C.UTF-8")) {
                try (RunSupport run = RunSupport.start(Launcher.OPEN_MPI, tmp,
                        Map.of("LC_ALL", locale, "XV", exact(ENV_VALUE)), args.toArray(String[]::new))) {
                    RunSupport.Result r = run.waitFor();
                    run.assertNoSurvivors();
                    assertEquals(0, r.exitCode(), r.toString());
                    assertEquals(2, r.out().lines().filter(l -> l.endsWith(expectedLine())).count(),
                            locale + ": want " + expectedLine() + " from both ranks\n" + r);
                }
            }
        }
    }
}
