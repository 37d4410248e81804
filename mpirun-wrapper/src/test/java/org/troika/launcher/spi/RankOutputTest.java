package org.troika.launcher.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.troika.launcher.spi.RankOutput.Line;
import org.troika.launcher.spi.RankOutput.TagFormat;

/** The launchers' rank tags, as printed by Open MPI 4.1.4, Open MPI 5.0.7 and MPICH 4.0.2 here (OPENMPI5.md). */
class RankOutputTest {
    static Stream<Arguments> lines() {
        return Stream.of(
                // format, segment, read from mpirun's stderr, expected
                Arguments.of(TagFormat.ORTE, "[1,0]<stdout>:o\n", false, new Line(0, false, "o\n")),
                Arguments.of(TagFormat.ORTE, "[1,3]<stderr>: e\n", true, new Line(3, true, " e\n")),
                Arguments.of(TagFormat.ORTE, "Mon Nov 23 06:27:45 2026[1,1]<stdout>:o\n", false, new Line(1, false, "o\n")),
                Arguments.of(TagFormat.ORTE, "Mon Nov  3 06:27:45 2026[1,1]<stderr>:e\n", true, new Line(1, true, "e\n")),
                Arguments.of(TagFormat.ORTE, "[1,2]<stddiag>:diag\n", true, new Line(2, true, "diag\n")),
                Arguments.of(TagFormat.PRRTE, "[1,1]<stdout>: o\n", false, new Line(1, false, "o\n")),
                Arguments.of(TagFormat.PRRTE, "[1,1]<stdout>:  indented\n", false, new Line(1, false, " indented\n")),
                Arguments.of(TagFormat.PRRTE, "[Mon Nov 23 06:27:45 2026][1,0]<stderr>: e\n", true, new Line(0, true, "e\n")),
                Arguments.of(TagFormat.PRRTE, "[1,0]<stdout>:\n", false, new Line(0, false, "\n")),
                Arguments.of(TagFormat.HYDRA, "[0] o\n", false, new Line(0, false, "o\n")),
                Arguments.of(TagFormat.HYDRA, "[3] e\n", true, new Line(3, true, "e\n")),
                Arguments.of(TagFormat.HYDRA, "[2] [1,0]<stdout>:x\n", false, new Line(2, false, "[1,0]<stdout>:x\n")),
                // srun --label (Slurm 22.05), right-aligned from 10 tasks on
                Arguments.of(TagFormat.SRUN, "0: o\n", false, new Line(0, false, "o\n")),
                Arguments.of(TagFormat.SRUN, " 3:  e\n", true, new Line(3, true, " e\n")),
                Arguments.of(TagFormat.SRUN, "1: \n", false, new Line(1, false, "\n")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("lines")
    void rankLinesLoseOnlyTheTag(TagFormat format, String segment, boolean fromStderr, Line expected) {
        assertEquals(Optional.of(expected), new RankOutput(Path.of("d"), 4, format, null).parse(segment, fromStderr));
    }

    static Stream<Arguments> launcherLines() {
        return Stream.of(
                Arguments.of(TagFormat.ORTE, "mpirun noticed that process rank 1 with PID 0 on node vm exited\n"),
                Arguments.of(TagFormat.ORTE, "[1,7]<stdout>:rank outside the job\n"),
                Arguments.of(TagFormat.ORTE, "[1,99999999999]<stdout>:x\n"),
                Arguments.of(TagFormat.PRRTE, "--------------------------------------------------------------------------\n"),
                Arguments.of(TagFormat.PRRTE, "[vm:01234] PMIX ERROR: PMIX_ERR_EXISTS\n"),
                Arguments.of(TagFormat.HYDRA, "[proxy:0:0@vm] HYDU_create_process\n"),
                Arguments.of(TagFormat.HYDRA, "untagged\n"),
                Arguments.of(TagFormat.SRUN, "srun: error: n3: task 4: Exited with exit code 7\n"),
                Arguments.of(TagFormat.SRUN, "7: rank outside the job\n"),
                Arguments.of(TagFormat.SRUN, "12:30 not a label\n"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("launcherLines")
    void theLaunchersOwnLinesBelongToNoRank(TagFormat format, String segment) {
        assertEquals(Optional.empty(), new RankOutput(Path.of("d"), 4, format, null).parse(segment, true));
    }

    /** Moved from HangWatch (which parsed tags itself and missed timestamps and srun labels). */
    @Test
    void outputTagsGiveTheRank() {
        assertEquals(3, rankOf(TagFormat.ORTE, "[1,3]<stdout>:step 4"));
        assertEquals(12, rankOf(TagFormat.PRRTE, "[1,12]<stderr>: warning"));
        assertEquals(2, rankOf(TagFormat.HYDRA, "[2] hello from hydra"));
        assertEquals(-1, rankOf(TagFormat.ORTE, "troika: something"));
        assertEquals(5, rankOf(TagFormat.ORTE, "Mon Nov 23 06:27:45 2026[1,5]<stdout>:step 4"));
        assertEquals(5, rankOf(TagFormat.PRRTE, "[Mon Nov 23 06:27:45 2026][1,5]<stdout>: step 4"));
        assertEquals(11, rankOf(TagFormat.SRUN, "11: step 4"));
        assertEquals(3, rankOf(TagFormat.SRUN, " 3: step 4"));
    }

    private static int rankOf(TagFormat format, String line) {
        return new RankOutput(null, 16, format, null).parse(line, false).map(Line::rank).orElse(-1);
    }

    /**
     * Open MPI's tags without a date take a shortcut past the cursor: cut anywhere they wait for more, whole they give
     * the same fields, and near misses are no tags.
     */
    @Test
    void openMpiTagsCutAnywhereWaitAndWholeOnesGiveTheirFields() {
        String[][] tags = {{"[1,0]<stdout>:", "1", "0", "STDOUT"}, {"[2,123456789]<stderr>:", "2", "123456789", "STDERR"},
                {"[1,7]<stddiag>:", "1", "7", "STDERR"}};
        for (TagFormat f : new TagFormat[] {TagFormat.ORTE, TagFormat.PRRTE}) {
            for (String[] tag : tags) {
                String space = f == TagFormat.PRRTE ? " " : "";
                byte[] b = (tag[0] + space + "x\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                int whole = tag[0].length() + space.length();
                RankOutput.Tag t = new RankOutput.Tag();
                for (int n = 0; n < whole; n++) {
                    assertEquals(RankOutput.MORE, f.match(b, 0, n, t), f + " " + tag[0] + " after " + n + " bytes");
                }
                for (int to = whole; to <= b.length; to++) {
                    t = new RankOutput.Tag();
                    assertEquals(whole, f.match(b, 0, to, t), f + " " + tag[0] + " in " + to + " bytes");
                    assertEquals(Integer.parseInt(tag[1]), t.job);
                    assertEquals(Integer.parseInt(tag[2]), t.rank);
                    assertEquals(RankOutput.Stream.valueOf(tag[3]), t.stream);
                }
            }
            for (String miss : new String[] {"[1,1234567890]<stdout>:x\n", "[1,0]<stdcat>:x\n", "[1,0]<stdout>;x\n",
                    "[1,]<stdout>:x\n", "[,0]<stdout>:x\n", "[1;0]<stdout>:x\n", "[1,0)<stdout>:x\n"}) {
                byte[] b = miss.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                assertEquals(0, f.match(b, 0, b.length, new RankOutput.Tag()), f + " " + miss);
            }
        }
    }

    /** A tag cut by a read is a prefix: the next bytes decide; anything else is decided at once. */
    @Test
    void aTagCutByAReadWaitsForMoreAndNothingElseDoes() {
        String[][] cases = {{"ORTE", "Mon Nov 23 06:27:45 2026[1,5]<stdout>:"}, {"PRRTE",
                "[Mon Nov 23 06:27:45 2026][1,5]<stderr>: "}, {"HYDRA", "[12] "}, {"SRUN", "  12: "}};
        for (String[] c : cases) {
            TagFormat f = TagFormat.valueOf(c[0]);
            byte[] b = c[1].getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            RankOutput.Tag t = new RankOutput.Tag();
            for (int n = 0; n < b.length; n++) {
                assertEquals(RankOutput.MORE, f.match(b, 0, n, t), c[0] + " after " + n + " bytes");
            }
            assertEquals(b.length, f.match(b, 0, b.length, t), c[0]);
            assertEquals(0, f.match("x".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, 1, t), c[0]);
        }
        byte[] cut = "[1,0]<stdout>:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(RankOutput.MORE, TagFormat.PRRTE.match(cut, 0, cut.length, new RankOutput.Tag()),
                "PRRTE's space may still follow");
    }

    @Test
    void filesAreOnePerRankAndStream() {
        RankOutput o = new RankOutput(Path.of("/logs"), 2, TagFormat.PRRTE, null);
        assertEquals(Path.of("/logs/rank.1.stdout"), o.file(1, false));
        assertEquals(Path.of("/logs/rank.0.stderr"), o.file(0, true));
        assertThrows(IllegalArgumentException.class, () -> new RankOutput(Path.of("/logs"), 0, TagFormat.ORTE, null));
        assertThrows(NullPointerException.class, () -> new RankOutput(null, 2, TagFormat.ORTE, null).file(0, false),
                "no folder, no files");
    }
}
