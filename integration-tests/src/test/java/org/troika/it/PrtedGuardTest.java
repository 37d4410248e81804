package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.testkit.Dist;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.Requires;

/**
 * The PRRTE daemon guard ({@code lib/libtroika-prted-guard.so}, built by bin/troika-mkcds from
 * lib/troika-prted-guard.c) on its own, against stand-ins for PMIx (records what it was asked for) and for PRRTE's
 * library: an info array of one element that PRRTE's code asks PMIx_Info_create for has a second (the element PRRTE
 * 3.0.x reads and destructs after the connect of a spawn across hosts, docs/elastic.md), other counts and other
 * callers get what they asked for, and in a process named {@code prted} (or prterun/prte: mpirun's own daemon) the
 * guard leaves {@code LD_PRELOAD} without itself (other entries kept, in order) so the ranks a daemon starts do not
 * inherit it, while any other process (the setsid and shell in front of the daemon) passes it on.
 * ElasticShrinkRunTest's growth sees it in a real daemon.
 */
@Tag("integration")
class PrtedGuardTest {
    @TempDir Path tmp;
    private Path guard;
    private Path program;

    /** A stand-in for libpmix: PMIx_Info_create prints the count it got and allocates that many 8-byte slots. */
    private static final String FAKE_PMIX = String.join("\n",
            "#include <stdio.h>",
            "#include <stdlib.h>",
            "void *PMIx_Info_create(size_t n) {",
            "  printf(\"pmix-create %zu\\n\", n);",
            "  return n == 0 ? NULL : calloc(n, 8);",
            "}",
            "");

    /** A stand-in for PRRTE's library: its code asks PMIx for info arrays (the guard pads only those). */
    private static final String FAKE_PRRTE = String.join("\n",
            "#include <stddef.h>",
            "void *PMIx_Info_create(size_t n);",
            "void *prrte_asks(size_t n) { return PMIx_Info_create(n); }",
            "");

    /**
     * Asks for arrays of 1, 0 and 3 elements through PRRTE's stand-in, then for 1 from its own code, then prints
     * LD_PRELOAD as it now is.
     */
    private static final String PROGRAM = String.join("\n",
            "#include <stdio.h>",
            "#include <stdlib.h>",
            "void *PMIx_Info_create(size_t n);",
            "void *prrte_asks(size_t n);",
            "int main(void) {",
            "  size_t asks[] = {1, 0, 3};",
            "  for (int i = 0; i < 3; i++) {",
            "    void *p = prrte_asks(asks[i]);",
            "    printf(\"got %s\\n\", p == NULL ? \"none\" : \"array\");",
            "    free(p);",
            "  }",
            "  free(PMIx_Info_create(1));",
            "  const char *pre = getenv(\"LD_PRELOAD\");",
            "  printf(\"LD_PRELOAD=%s\\n\", pre == NULL ? \"(unset)\" : pre);",
            "  fflush(stdout);",
            "  return 0;",
            "}",
            "");

    @BeforeEach
    void build() throws Exception {
        guard = Dist.home().resolve("lib/libtroika-prted-guard.so");
        assertTrue(Files.isRegularFile(guard),
                "bin/troika-mkcds builds lib/libtroika-prted-guard.so at packaging (a C compiler is part of the test "
                        + "set-up)");
        Files.writeString(tmp.resolve("fakepmix.c"), FAKE_PMIX);
        Files.writeString(tmp.resolve("fakeprrte.c"), FAKE_PRRTE);
        Files.writeString(tmp.resolve("program.c"), PROGRAM);
        cc("-shared", "-fPIC", "-o", tmp.resolve("libfakepmix.so").toString(), tmp.resolve("fakepmix.c").toString());
        // named as Open MPI 5's PRRTE library is (libprrte.so.3): the guard knows PRRTE's code by that name
        Path prrte = tmp.resolve("prrte/libprrte.so.3");
        Files.createDirectories(prrte.getParent());
        cc("-shared", "-fPIC", "-o", prrte.toString(), tmp.resolve("fakeprrte.c").toString(), "-L" + tmp,
                "-lfakepmix", "-Wl,-rpath," + tmp);
        program = tmp.resolve("bin/prted");
        Files.createDirectories(program.getParent());
        cc("-o", program.toString(), tmp.resolve("program.c").toString(), prrte.toString(), "-L" + tmp,
                "-lfakepmix", "-Wl,-rpath," + tmp + ":" + prrte.getParent());
    }

    @Test
    void prrtesArraysOfOneGetASecondElementAndInTheDaemonTheGuardLeavesLdPreload() throws Exception {
        // a library of the user's, preloaded after the guard, stays preloaded for the daemon's children
        String other = tmp.resolve("libother.so").toString();
        Files.writeString(tmp.resolve("other.c"), "int troika_test_other(void) { return 1; }\n");
        cc("-shared", "-fPIC", "-o", other, tmp.resolve("other.c").toString());
        String out = run(program, List.of(), guard + ":" + other);
        assertEquals(String.join("\n",
                "pmix-create 2", "got array",
                "pmix-create 0", "got none",
                "pmix-create 3", "got array", "pmix-create 1",
                "LD_PRELOAD=" + other, ""), out);
    }

    @Test
    void theGuardAloneIsRemovedFromLdPreloadInTheDaemon() throws Exception {
        assertEquals(String.join("\n", "pmix-create 2", "got array", "pmix-create 0", "got none",
                "pmix-create 3", "got array", "pmix-create 1",
                "LD_PRELOAD=(unset)", ""), run(program, List.of(), guard.toString()));
    }

    @Test
    void mpirunsPrrteLeavesLdPreloadTooSoTheLaunchNodesRanksDoNotInheritIt() throws Exception {
        // Open MPI 5's mpirun execs prterun (a link to prte): the daemon of the launch node's ranks
        for (String name : List.of("prterun", "prte")) {
            Path named = tmp.resolve("bin/" + name);
            Files.copy(program, named);
            assertTrue(run(named, List.of(), guard.toString()).endsWith("LD_PRELOAD=(unset)\n"), name);
        }
    }

    /**
     * A real Open MPI 5 run through troika: mpirun's daemon (prterun, the ranks' parent on the launch node) maps the
     * guard, the ranks map nothing of it and see no LD_PRELOAD.
     */
    @Test
    void openMpi5sMpirunRunsWithTheGuardAndItsRanksWithout() throws Exception {
        Requires.root();
        Launcher.OPEN_MPI_5.require();
        RunSupport.Result r = RunSupport.run(Launcher.OPEN_MPI_5, tmp, "-np", "2", "sh", "-c",
                "echo \"guard $(grep -c prted-guard /proc/$$/maps) preload [$LD_PRELOAD] parent $(cat /proc/$PPID/comm)"
                        + " $(grep -c prted-guard /proc/$PPID/maps)\"");
        assertEquals(0, r.exitCode(), r.toString());
        for (int rank = 0; rank < 2; rank++) {
            String tag = RunSupport.tag(Launcher.OPEN_MPI_5, rank, "stdout");
            assertTrue(r.out().contains(tag + "guard 0 preload [] parent prterun "), r.toString());
        }
        assertFalse(r.out().contains(" prterun 0"), "prterun runs with the guard: " + r);
    }

    @Test
    void aProcessOtherThanTheDaemonPassesTheGuardOn() throws Exception {
        Path named = tmp.resolve("bin/sh-like");
        Files.copy(program, named);
        assertEquals(String.join("\n", "pmix-create 2", "got array", "pmix-create 0", "got none",
                "pmix-create 3", "got array", "pmix-create 1",
                "LD_PRELOAD=" + guard, ""), run(named, List.of(), guard.toString()));
    }

    @Test
    void withoutTheGuardTheCountsAreThoseAskedFor() throws Exception {
        // the control: the stand-in and the program alone
        assertEquals(String.join("\n", "pmix-create 1", "got array", "pmix-create 0", "got none",
                "pmix-create 3", "got array", "pmix-create 1",
                "LD_PRELOAD=(unset)", ""), run(program, List.of(), null));
    }

    private void cc(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("cc"));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "cc " + String.join(" ", args) + ":\n" + out);
    }

    private static String run(Path exe, List<String> args, String preload) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(exe.toString()));
        argv.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.remove("LD_PRELOAD");
        if (preload != null) {
            env.put("LD_PRELOAD", preload);
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        return out;
    }
}
