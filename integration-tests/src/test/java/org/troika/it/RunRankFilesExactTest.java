package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.CPrograms;
import org.troika.testkit.MpiJob.Launcher;

/**
 * Issue 22: {@code --output-filename DIR} files hold exactly what each rank printed. A rank program prints lines of
 * every kind (a 10 kB, a 70 kB and a 300 kB line, a line written in two parts, {@code \r}, bytes that are not UTF-8,
 * Latin-1, text that looks like tags, no newline at the end) and writes the same bytes to its own copy; troika's files
 * must equal the rank's copy, byte for byte, on every MPI, static and elastic.
 *
 * <p>Open MPI 5.0.7 (PRRTE, PMIx 5) reads a rank's output 4 KiB at a time and keeps one unfinished-line buffer per
 * stream for all ranks: the unfinished line of one read is mixed with other ranks' lines or lost before troika (or its
 * own {@code --output dir=}) sees it. There each rank prints its lines (all kinds but the long ones) in one write of
 * less than 4 KiB per stream, which PRRTE passes on intact (docs/mpirun-flags.md).
 */
@Tag("integration")
class RunRankFilesExactTest {
    @TempDir
    Path tmp;

    static final String PROGRAM = """
            #include <fcntl.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <unistd.h>
            static int own[3];
            static int whole;
            static char held[3][4096];
            static size_t heldLen[3];
            static void put(int fd, const char *b, size_t n) {
                for (size_t o = 0; o < n;) { ssize_t w = write(fd, b + o, n - o); if (w <= 0) exit(9); o += w; }
                write(own[fd], b, n);
            }
            /* whole: everything a stream gets is held and written at the end in one write (under 4 KiB) */
            static void out(int fd, const char *b, size_t n) {
                if (!whole) { put(fd, b, n); return; }
                memcpy(held[fd] + heldLen[fd], b, n);
                heldLen[fd] += n;
            }
            int main(int argc, char **argv) {
                const char *r = getenv("OMPI_COMM_WORLD_RANK");
                if (!r) r = getenv("PMI_RANK");
                whole = argc > 2 && strcmp(argv[2], "whole") == 0;
                char p[4096];
                snprintf(p, sizeof p, "%s/rank.%s.stdout", argv[1], r);
                own[1] = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0600);
                snprintf(p, sizeof p, "%s/rank.%s.stderr", argv[1], r);
                own[2] = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0600);
                int rank = atoi(r);
                static char big[300001];
                for (int i = 0; i < 300000; i++) big[i] = 'a' + (i * 7 + rank) % 26;
                char line[256];
                int n = snprintf(line, sizeof line, "hello from %d\\n", rank);
                out(1, line, n);
                out(1, "x\\ry\\r\\n", 5);
                out(1, "caf\\xe9 \\xff\\xfe \\xc3\\xa9\\n", 11);
                out(2, "err line\\n", 9);
                for (int i = 0; i < (whole ? 20 : 500); i++) {
                    n = snprintf(line, sizeof line, "line %d of rank %d [1] [2,3] a[%d] = %d [1,%d]<stdout>\\n", i, rank,
                            i % 4, i, rank);
                    out(1, line, n);
                }
                if (!whole) {
                    out(1, big, 10000); out(1, "\\n", 1);
                    out(1, "part1-", 6); usleep(100000); out(1, "part2\\n", 6);
                    out(2, big, 70000); out(2, "\\n", 1);
                    out(1, big, 300000); out(1, "\\n", 1);
                    out(1, "no newline at the end", 21);
                }
                for (int fd = 1; fd <= 2; fd++) {
                    if (heldLen[fd] > 0) put(fd, held[fd], heldLen[fd]);
                }
                return 0;
            }
            """;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void eachStaticRanksFileIsWhatItPrinted(Launcher mpi) throws Exception {
        check(mpi, false);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Launcher.class)
    void eachElasticRanksFileIsWhatItPrinted(Launcher mpi) throws Exception {
        check(mpi, true);
    }

    private void check(Launcher mpi, boolean elastic) throws Exception {
        Path bin = CPrograms.compile(mpi, tmp, "printer", PROGRAM);
        Path own = Files.createDirectories(tmp.resolve("own"));
        Path dir = tmp.resolve("logs");
        List<String> args = new ArrayList<>();
        if (elastic) {
            Path discover = tmp.resolve("discover.sh");
            Files.writeString(discover, "#!/bin/sh\necho localhost:3\n");
            Files.setPosixFilePermissions(discover, PosixFilePermissions.fromString("rwx------"));
            args.addAll(List.of("--host-discovery-script", discover.toString(), "--min-np", "3", "--max-np", "3"));
        } else {
            args.addAll(List.of("-np", "3", "-H", "localhost:3"));
        }
        args.addAll(List.of("--output-filename", dir.toString(), bin.toString(), own.toString()));
        if (mpi == Launcher.OPEN_MPI_5) {
            args.add("whole");
        }
        RunSupport.Result r = RunSupport.run(mpi, tmp, args.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r.err());
        for (int rank = 0; rank < 3; rank++) {
            for (String stream : List.of("stdout", "stderr")) {
                String name = "rank." + rank + "." + stream;
                byte[] printed = Files.readAllBytes(own.resolve(name));
                assertTrue(printed.length > 0, name);
                assertArrayEquals(printed, Files.readAllBytes(dir.resolve(name)), mpi + (elastic ? " elastic " : " ")
                        + name + " differs from what the rank printed");
            }
        }
        assertTrue(r.out().contains("hello from 2"), "the console keeps the output");
    }
}
