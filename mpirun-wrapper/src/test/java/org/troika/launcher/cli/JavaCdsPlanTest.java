package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.launcher.elastic.Generation;
import org.troika.launcher.exec.MpirunGenerationLauncher;
import org.troika.launcher.hosts.HostResolver;
import org.troika.launcher.mpi.FlavorDetector;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.RunSettings;

/**
 * {@code --java-cds} / {@code --no-java-cds} as planned, from {@code troika run}'s words to the launch's argv and
 * environment (data, nothing runs): the ranks get {@code TROIKA_JAVA_CDS} through the same exports as every
 * {@code TROIKA_*} variable ({@code -x NAME} for Open MPI; Hydra forwards mpirun's environment). Elastic generations
 * are planned the way {@code RunCommand.runElastic}'s planner does it: the generation's settings and
 * {@link MpirunGenerationLauncher#rankEnv}, whose default ({@code 1}) the flag overrides.
 */
class JavaCdsPlanTest {
    private static final Map<String, String> CALLER = Map.of("PATH", "/usr/bin:/bin", "HOME", "/home/u");
    private final RunCommand run = new RunCommand(FileSource.system(), (argv, timeout) -> {
        throw new AssertionError("nothing is probed: " + argv);
    });

    /** The launch planned for {@code words}, with the caller's {@code TROIKA_JAVA_CDS} ({@code -} = unset). */
    private BackendPlan plan(String words, String callerCds) {
        Map<String, String> env = new HashMap<>(CALLER);
        if (!callerCds.equals("-")) {
            env.put("TROIKA_JAVA_CDS", callerCds);
        }
        RunSettings s = RunCommandLine.parse(Arrays.asList(words.split(" ")), FileSource.system(), true).settings();
        if (!s.elastic().enabled()) {
            return run.plan(s, env).plan();
        }
        MpiInstall mpi = FlavorDetector.forFlavorName(s.launcher().mpiFlavor());
        Generation gen = new Generation(1, Generation.Reason.START, HostPlan.assign("elastic generation 1",
                s.hosts().list(), 4));
        return run.plan(MpirunGenerationLauncher.generationSettings(s, gen),
                MpirunGenerationLauncher.rankEnv(env, "job", gen.id(), "127.0.0.1:4000"),
                new HostResolver.Resolved(gen.plan(), null), mpi, null).plan();
    }

    /**
     * @param expected the ranks' {@code TROIKA_JAVA_CDS}, {@code -} = not in their environment at all
     */
    @ParameterizedTest(name = "{0} (caller: {1}) -> {2}")
    @CsvSource(delimiter = '|', value = {
        "-np 2 --mpi-flavor openmpi                          | -  | -",
        "-np 2 --mpi-flavor openmpi --java-cds               | -  | 1",
        "-np 2 --mpi-flavor openmpi --java-cds               | 0  | 1",
        "-np 2 --mpi-flavor openmpi                          | 1  | 1",
        "-np 2 --mpi-flavor openmpi --no-java-cds            | 1  | 0",
        "-np 2 --mpi-flavor openmpi5 --java-cds              | -  | 1",
        "-np 2 --mpi-flavor mpich --java-cds                 | -  | 1",
        "-np 2 --mpi-flavor intel --no-java-cds              | 1  | 0",
        "--min-np 2 --mpi-flavor openmpi -H a:2,b:2          | -  | 1",
        "--min-np 2 --mpi-flavor openmpi -H a:2,b:2 --no-java-cds | - | 0",
        "--min-np 2 --mpi-flavor openmpi -H a:2,b:2 --no-java-cds | 1 | 0",
        "--min-np 2 --mpi-flavor openmpi5 -H a:2,b:2 --java-cds   | 0 | 1"})
    void ranksGetTroikaJavaCdsFromTheFlagElseTheCallerElseTheElasticDefault(String options, String callerCds,
            String expected) {
        BackendPlan p = plan(options.strip() + " java -cp app.jar my.Train", callerCds.strip());
        List<String> argv = p.launch().argv();
        String want = expected.strip();
        boolean hydra = options.contains("mpich") || options.contains("intel");
        int exported = Collections.indexOfSubList(argv, List.of("-x", "TROIKA_JAVA_CDS"));
        assertAll(
                () -> assertEquals(want.equals("-") ? null : want, p.launch().env().get("TROIKA_JAVA_CDS"),
                        p.launch().env()::toString),
                // Open MPI passes it by name (mpirun's value); Hydra forwards its whole environment, no -x
                () -> assertEquals(!want.equals("-") && !hydra, exported >= 0, argv::toString),
                () -> assertEquals(List.of("java", "-cp", "app.jar", "my.Train"), argv.subList(argv.size() - 4,
                        argv.size()), "the command is untouched"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"--java-cds, 1", "--no-java-cds, 0"})
    void withoutTheDistributionsRankWrapperAskingForCdsIsAWarning(String flag, String value) {
        BackendPlan p = plan("-np 2 --mpi-flavor openmpi " + flag + " java -cp app.jar my.Train", "-");
        // this test runs without troika.home, as an embedded troika would: no bin/troika-rankenv to do the work
        assertEquals(value, p.launch().env().get("TROIKA_JAVA_CDS"));
        assertEquals(flag.equals("--java-cds"), p.warnings().stream().anyMatch(w -> w.startsWith("--java-cds works "
                + "through troika's rank wrapper bin/troika-rankenv")), p.warnings()::toString);
        assertTrue(p.warnings().stream().allMatch(w -> !w.contains("\n")), "one line each");
    }
}
