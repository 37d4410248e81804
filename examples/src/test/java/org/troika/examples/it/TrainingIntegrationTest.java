package org.troika.examples.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.examples.Training;
import org.troika.testkit.MpiJob;
import org.troika.testkit.MpiJob.Launcher;

/** The training example under a real MPI job: it learns, and every rank ends with the same model. */
@Tag("integration")
class TrainingIntegrationTest {
    private static final Pattern CHECKSUM = Pattern.compile("^rank (\\d+) model-checksum ([0-9a-f]{16})$");
    private static final Pattern ACCURACY = Pattern.compile("^final accuracy (\\S+) on 4096 samples, (\\d+) ranks$");

    @ParameterizedTest(name = "{0} np={1}")
    @CsvSource({"OPEN_MPI, 4", "MPICH, 2", "OPEN_MPI_5, 4"})
    void ranksTrainTheSameModel(Launcher launcher, int np) {
        MpiJob.Result result = MpiJob.run(launcher, np, Training.class.getName(),
                List.of("--epochs", "5", "--samples", "4096"), 240);
        assertEquals(0, result.exitCode(), result.output());

        List<String> lines = result.lines();
        assertEquals(5, lines.stream().filter(l -> l.matches("^epoch \\d/5 loss \\d+\\.\\d{6}$")).count(),
                result.output());
        double accuracy = lines.stream().map(ACCURACY::matcher).filter(Matcher::find)
                .peek(m -> assertEquals(Integer.toString(np), m.group(2)))
                .mapToDouble(m -> Double.parseDouble(m.group(1))).findFirst().orElseThrow();
        assertTrue(accuracy > 0.85, "accuracy " + accuracy);
        Set<String> sums = lines.stream().map(CHECKSUM::matcher).filter(Matcher::find).map(m -> m.group(2))
                .collect(Collectors.toSet());
        assertEquals(np, lines.stream().filter(l -> CHECKSUM.matcher(l).find()).count(), result.output());
        assertEquals(1, sums.size(), "ranks ended with different models: " + sums);
    }
}
