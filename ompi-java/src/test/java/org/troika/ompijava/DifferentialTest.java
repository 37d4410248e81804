package org.troika.ompijava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/**
 * The same programs ({@code src/test/programs/diff}, compiled once against Open MPI 5.0.7's own {@code mpi.jar})
 * run on that binding inside the Open MPI 5 root and on troika's drop-in on Open MPI 4.1, MPICH 4.0 and Open MPI
 * 5.0, with JNA and FFM: every rank's output must be the same, line for line. The class files are never
 * recompiled for troika: this is also the binary-compatibility test. The {@code extras} programs, compiled against
 * the drop-in, run after them in the same job and check in Java what Open MPI's binding cannot run (its crashes and
 * the drop-in's additions).
 */
@Tag("integration")
class DifferentialTest {
    static final int NP = 4;
    @TempDir
    static Path work;
    static Path classes;
    static Path reference;

    @BeforeAll
    static void compileAndRunTheReference() throws Exception {
        Programs.requireReference();
        org.troika.testkit.OpenMpi5Root.require();
        classes = Files.createDirectories(work.resolve("classes"));
        Programs.compileAgainstReference(Programs.sources("diff"), classes);
        Programs.compileAgainstDropIn(Programs.sources("extras"), classes, classes.toString());
        reference = Files.createDirectories(work.resolve("reference"));
        MpiJob.Result r = Programs.runReference(work, NP, classes.toString(), "diff.Main",
                List.of(reference.toString()), 240);
        assertEquals(0, r.exitCode(), "Open MPI's own binding failed the programs:\n" + r.output());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("org.troika.ompijava.Programs#configurations")
    void sameOutputAsOpenMpisBinding(Launcher launcher, Programs.Backend backend) throws Exception {
        Path out = Files.createDirectories(work.resolve(launcher + "-" + backend));
        MpiJob.Result r = Programs.runDropIn(launcher, backend, NP, classes.toString(), "diff.Main",
                List.of(out.toString(), "extras"), 240);
        assertEquals(0, r.exitCode(), r.output());
        int lines = 0;
        int checks = 0;
        for (int rank = 0; rank < NP; rank++) {
            List<String> want = Files.readAllLines(reference.resolve("rank-" + rank + ".txt"));
            List<String> got = Files.readAllLines(out.resolve("rank-" + rank + ".txt"));
            assertTrue(want.size() > 600, "the reference printed only " + want.size() + " lines");
            for (int i = 0; i < Math.max(want.size(), got.size()); i++) {
                String w = i < want.size() ? want.get(i) : "<end>";
                String g = i < got.size() ? got.get(i) : "<end>";
                if (!w.equals(g)) {
                    fail("rank " + rank + " line " + (i + 1) + " differs\n  Open MPI: " + w + "\n  troika:   " + g);
                }
            }
            lines += want.size();
            List<String> extras = Files.readAllLines(out.resolve("extras-" + rank + ".txt"));
            checks += (int) extras.stream().filter(l -> l.startsWith("ok ")).count();
            assertTrue(extras.contains("extras done"), "extras did not finish on rank " + rank + ": " + extras);
            for (String line : extras) {
                assertTrue(line.startsWith("ok ") || line.startsWith("==") || line.equals("extras done"),
                        "rank " + rank + ": " + line);
            }
        }
        System.out.println(launcher + " " + backend + ": " + lines + " lines equal to Open MPI's binding on " + NP
                + " ranks, " + checks + " extras checks ok");
    }
}
