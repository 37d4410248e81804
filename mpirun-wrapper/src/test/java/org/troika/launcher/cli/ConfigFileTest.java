package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.HANG_TIMEOUT;
import static org.troika.launcher.options.RunOptionTable.HANG_WARNING;
import static org.troika.launcher.options.RunOptionTable.TIMELINE;

import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.troika.common.UsageException;
import org.troika.launcher.options.RunOption;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.FileSource;

/** Horovod's YAML config file mapped to troika run's flags and the ranks' variables, as data. */
class ConfigFileTest {
    /** The whole of a typical horovodrun config file (Horovod's documented sections and keys). */
    static final String HOROVOD = """
            params:
              fusion_threshold_mb: 32
              cycle_time_ms: 10
              cache_capacity: 2048
              hierarchical_allreduce: false
              hierarchical_allgather: false
            autotune:
              enabled: true
              log_file: /tmp/autotune_log.csv
              warmup_samples: 3
              steps_per_sample: 10
              bayes_opt_max_samples: 20
              gaussian_process_noise: 0.8
            timeline:
              filename: /tmp/timeline.json
              mark_cycles: false
            stall_check:
              enabled: true
              warning_time_seconds: 60
              shutdown_time_seconds: 120
            library_options:
              mpi_threads_disable: true
              num_nccl_streams: 2
            logging:
              level: DEBUG
              hide_timestamp: true
            """;

    /** troika run's options. */
    static List<RunOption<?>> withOperabilityFlags() {
        return RunOptionTable.ALL;
    }

    /** troika run's options as a build without the operability flags has them. */
    static List<RunOption<?>> withoutOperabilityFlags() {
        return RunOptionTable.ALL.stream().filter(row -> !List.of(TIMELINE, HANG_TIMEOUT,
                HANG_WARNING).contains(row)).toList();
    }

    static FileSource file(String text) {
        return p -> {
            if (!p.toString().equals("hvd.yaml")) {
                throw new NoSuchFileException(p.toString());
            }
            return text.lines().toList();
        };
    }

    static ConfigFile.Applied apply(String yaml, List<RunOption<?>> options, String... args) {
        List<String> all = new java.util.ArrayList<>(List.of("--config-file", "hvd.yaml"));
        all.addAll(List.of(args));
        return ConfigFile.apply(all, options, file(yaml));
    }

    @Test
    void horovodsConfigMapsToFlagsAndRankVariablesWithOneWarningPerKeyWithoutMeaning() {
        ConfigFile.Applied a = apply(HOROVOD, withOperabilityFlags(), "-np", "2", "python", "train.py");
        // in key order; the stall check's flags last, as its three keys are read together
        assertEquals(List.of("--timeline=/tmp/timeline.json", "--verbose", "--hang-warning=60", "--hang-timeout=120",
                "--config-file", "hvd.yaml", "-np", "2", "python", "train.py"), a.args());
        assertEquals(Map.of("TROIKA_FUSION_THRESHOLD", Long.toString(32L << 20), "TROIKA_MPI_THREAD_LEVEL", "single"),
                a.env());
        List<String> keys = List.of("params.cycle_time_ms", "params.cache_capacity", "params.hierarchical_allreduce",
                "params.hierarchical_allgather", "autotune.enabled", "autotune.log_file", "autotune.warmup_samples",
                "autotune.steps_per_sample", "autotune.bayes_opt_max_samples", "autotune.gaussian_process_noise",
                "timeline.mark_cycles", "library_options.num_nccl_streams", "logging.hide_timestamp");
        assertEquals(keys.size(), a.warnings().size(), () -> String.join("\n", a.warnings()));
        for (int i = 0; i < keys.size(); i++) {
            assertEquals("hvd.yaml: " + keys.get(i) + " has no meaning in troika; ignored", a.warnings().get(i));
        }
    }

    @Test
    void commandLineFlagsWinOverTheFile() {
        ConfigFile.Applied a = apply(HOROVOD, withOperabilityFlags(), "--hang-timeout", "5", "--timeline", "mine.json",
                "hostname");
        assertEquals(List.of("--verbose", "--hang-warning=60", "--config-file", "hvd.yaml", "--hang-timeout", "5",
                "--timeline", "mine.json", "hostname"), a.args());
    }

    /** Issue 22: a value starting with '-' stays the flag's value (it was "Missing argument for option"). */
    @Test
    void aValueStartingWithADashIsTheFlagsValue() {
        ConfigFile.Applied a = apply("timeline: {filename: -t.json}\n", withOperabilityFlags(), "hostname");
        assertEquals(List.of("--timeline=-t.json", "--config-file", "hvd.yaml", "hostname"), a.args());
        assertEquals(java.nio.file.Path.of("-t.json"), RunCommandLine.parse(a.args(), null,
                true).settings().output().timeline());
    }

    @Test
    void theCallersEnvironmentWinsOverTheFile() {
        ConfigFile.Applied a = apply(HOROVOD, withOperabilityFlags(), "hostname");
        Map<String, String> env = a.environment(Map.of("TROIKA_FUSION_THRESHOLD", "1024", "PATH", "/bin"));
        assertEquals("1024", env.get("TROIKA_FUSION_THRESHOLD"));
        assertEquals("single", env.get("TROIKA_MPI_THREAD_LEVEL"));
        assertEquals("/bin", env.get("PATH"));
    }

    @Test
    void aFlagThisBuildLacksTurnsItsKeyIntoAWarning() {
        ConfigFile.Applied a = apply("timeline: {filename: t.json}\nstall_check: {shutdown_time_seconds: 30}\n",
                withoutOperabilityFlags(), "hostname");
        assertEquals(List.of("--config-file", "hvd.yaml", "hostname"), a.args());
        assertEquals(List.of("hvd.yaml: timeline.filename needs --timeline, which this troika does not have; ignored",
                "hvd.yaml: stall_check.shutdown_time_seconds needs --hang-timeout, which this troika does not have;"
                        + " ignored"), a.warnings());
    }

    static Stream<Arguments> mappings() {
        return Stream.of(
                Arguments.of("stall_check:\n  enabled: false\n", List.of("--hang-timeout=0", "--hang-warning=0"),
                        Map.of(), List.of()),
                Arguments.of("stall_check:\n  enabled: no\n  shutdown_time_seconds: 9\n",
                        List.of("--hang-timeout=0", "--hang-warning=0"), Map.of(),
                        List.of("hvd.yaml: stall_check.shutdown_time_seconds is ignored: stall_check.enabled is false;"
                                + " ignored")),
                Arguments.of("stall_check:\n  shutdown_time_seconds: 0.5\n", List.of("--hang-timeout=1"), Map.of(),
                        List.of()),
                Arguments.of("params:\n  fusion_threshold_mb: 0.5\n", List.of(),
                        Map.of("TROIKA_FUSION_THRESHOLD", "524288"), List.of()),
                Arguments.of("params:\n  fusion_threshold_mb: 0\n", List.of(), Map.of("TROIKA_FUSION_THRESHOLD", "0"),
                        List.of()),
                Arguments.of("library_options:\n  mpi_threads_disable: false\n", List.of(),
                        Map.of("TROIKA_MPI_THREAD_LEVEL", "multiple"), List.of()),
                Arguments.of("logging:\n  level: warning\n", List.of(), Map.of(), List.of()),
                Arguments.of("logging:\n  level: trace\n", List.of("--verbose"), Map.of(), List.of()),
                Arguments.of("", List.of(), Map.of(), List.of()),
                Arguments.of("params:\n", List.of(), Map.of(), List.of()),
                Arguments.of("gpus: 4\nparams: {typo_mb: 1}\n", List.of(), Map.of(), List.of(
                        "hvd.yaml: gpus is not a section of Horovod's config file (params, autotune, timeline,"
                                + " stall_check, library_options, logging); ignored",
                        "hvd.yaml: params.typo_mb has no meaning in troika; ignored")));
    }

    @ParameterizedTest
    @MethodSource("mappings")
    void maps(String yaml, List<String> flags, Map<String, String> env, List<String> warnings) {
        ConfigFile.Applied a = apply(yaml, withOperabilityFlags(), "hostname");
        List<String> expected = new java.util.ArrayList<>(flags);
        expected.addAll(List.of("--config-file", "hvd.yaml", "hostname"));
        assertAll(yaml,
                () -> assertEquals(expected, a.args()),
                () -> assertEquals(env, a.env()),
                () -> assertEquals(warnings, a.warnings()));
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of("params:\n  fusion_threshold_mb: big\n",
                        "config file hvd.yaml: params.fusion_threshold_mb must be a number from 0 to 1024, got 'big'"),
                Arguments.of("params:\n  fusion_threshold_mb: -1\n",
                        "config file hvd.yaml: params.fusion_threshold_mb must be a number from 0 to 1024, got number -1"),
                Arguments.of("stall_check:\n  warning_time_seconds: [1]\n",
                        "config file hvd.yaml: stall_check.warning_time_seconds must be a number from 0 to 86400, got"
                                + " list [1]"),
                Arguments.of("stall_check:\n  enabled: maybe\n",
                        "config file hvd.yaml: stall_check.enabled must be true or false, got 'maybe'"),
                Arguments.of("library_options:\n  mpi_threads_disable: 1\n",
                        "config file hvd.yaml: library_options.mpi_threads_disable must be true or false, got number 1"),
                Arguments.of("logging:\n  level: loud\n",
                        "config file hvd.yaml: logging.level must be one of trace, debug, info, warning, error, fatal,"
                                + " got 'loud'"),
                Arguments.of("timeline:\n  filename: ''\n",
                        "config file hvd.yaml: timeline.filename must be a non-empty string, got ''"),
                Arguments.of("timeline: [a, b]\n", "config file hvd.yaml: timeline must be a mapping of keys, not a list"),
                Arguments.of("- params\n", "config file hvd.yaml must be a YAML mapping of sections (params, timeline,"
                        + " ...), not a list"),
                Arguments.of("params:\n  fusion_threshold_mb: 1\n  fusion_threshold_mb: 2\n",
                        "config file hvd.yaml is not valid YAML at line 3, column 3: found duplicate key"
                                + " fusion_threshold_mb; fix the file"),
                Arguments.of("params: {fusion_threshold_mb: 1\n",
                        "config file hvd.yaml is not valid YAML at line 1, column 32: expected ',' or '}', but got"
                                + " <stream end>; fix the file"),
                Arguments.of("params:\n\tfusion_threshold_mb: 1\n",
                        "config file hvd.yaml is not valid YAML at line 2, column 1: found character '\\t(TAB)' that cannot"
                                + " start any token. (Do not use \\t(TAB) for indentation); fix the file"));
    }

    @ParameterizedTest
    @MethodSource("errors")
    void badFilesAreOneLineErrorsNamingTheKey(String yaml, String message) {
        UsageException e = assertThrows(UsageException.class, () -> apply(yaml, withOperabilityFlags(), "hostname"));
        assertEquals(message, e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    /**
     * Issue 22: bounded before parsing. Comments count toward the 1 MiB (a 6 MB comment took 17 s, 10-20 MB ran out
     * of memory); nesting and aliases of maps and lists end in one line (self-reference and 1,000 levels were a
     * StackOverflowError and a 1,025-line trace).
     */
    static Stream<Arguments> bounds() {
        String laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                + "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n";
        StringBuilder block = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            block.append(" ".repeat(i)).append("k").append(i).append(":\n");
        }
        return Stream.of(
                Arguments.of("# " + "c".repeat(ConfigFile.MAX_BYTES) + "\nparams: {}\n",
                        "config file hvd.yaml has more than the 1048576-byte limit for config files; check the path"
                                + " given to --config-file"),
                Arguments.of("params: &p {x: *p}\n", "config file hvd.yaml is not valid YAML"),
                Arguments.of("a: &a [*a]\n", "config file hvd.yaml is not valid YAML"),
                Arguments.of(laughs, "config file hvd.yaml is not valid YAML"),
                Arguments.of("params: " + "[".repeat(1000) + "]".repeat(1000) + "\n",
                        "config file hvd.yaml nests maps and lists more than 32 levels deep at line 1"),
                Arguments.of("params: " + "[".repeat(500_000) + "\n",
                        "config file hvd.yaml nests maps and lists more than 32 levels deep at line 1"),
                Arguments.of(block.toString(), "config file hvd.yaml nests maps and lists more than 32 levels deep at"
                        + " line 33"));
    }

    @ParameterizedTest
    @MethodSource("bounds")
    void oversizedDeepOrSelfReferencingFilesAreOneLine(String yaml, String start) {
        UsageException e = assertThrows(UsageException.class, () -> apply(yaml, withOperabilityFlags(), "hostname"));
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void aFileJustUnderTheLimitWithALongCommentIsRead() {
        String yaml = "# " + "c".repeat(ConfigFile.MAX_BYTES - 100) + "\nparams:\n  fusion_threshold_mb: 2\n";
        assertEquals(Map.of("TROIKA_FUSION_THRESHOLD", Long.toString(2L << 20)),
                apply(yaml, withOperabilityFlags(), "hostname").env());
        String nested = "params: {fusion_threshold_mb: 1, x: " + "[".repeat(29) + "]".repeat(29) + "}\n";
        assertEquals(1, apply(nested, withOperabilityFlags(), "hostname").warnings().size());
    }

    @Test
    void missingFile() {
        UsageException e = assertThrows(UsageException.class, () -> ConfigFile.apply(
                List.of("--config-file", "nope.yaml", "hostname"), withOperabilityFlags(), file("")));
        assertEquals("config file nope.yaml does not exist; check the path given to --config-file", e.getMessage());
    }

    /** YAML tags that would build objects in an unsafe loader are not types here. */
    @Test
    void tagsDoNotConstructObjects() {
        UsageException e = assertThrows(UsageException.class, () -> apply(
                "params:\n  fusion_threshold_mb: !!javax.script.ScriptEngineManager [!!java.net.URLClassLoader [[]]]\n",
                withOperabilityFlags(), "hostname"));
        assertTrue(e.getMessage().startsWith("config file hvd.yaml"), e.getMessage());
    }

    @Test
    void parseErrorsOfFileFlagsNameTheKey() {
        ConfigFile.Applied a = apply("timeline: {filename: /no/such/dir/t.json}\n", withOperabilityFlags(), "hostname");
        UsageException e = a.explain(assertThrows(UsageException.class,
                () -> RunCommandLine.parse(a.args(), null, true)));
        assertEquals("config file hvd.yaml: timeline.filename: --timeline '/no/such/dir/t.json': the folder"
                + " '/no/such/dir' does not exist; create it first", e.getMessage());
        UsageException other = new UsageException("-np must be at least 1, got 0");
        assertEquals(other, a.explain(other));
    }

    @Test
    void withoutConfigFileNothingChanges() {
        ConfigFile.Applied a = ConfigFile.apply(List.of("-np", "2", "hostname"), RunOptionTable.ALL, file(""));
        assertEquals(List.of("-np", "2", "hostname"), a.args());
        assertTrue(a.env().isEmpty() && a.warnings().isEmpty());
    }

    /** In-process troika run --dry-run: the file's --verbose shows, and the rank variables reach the plan. */
    @Test
    void dryRunShowsTheEffect() throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        var io = new org.troika.launcher.spi.Subcommand.Io(new java.io.PrintStream(out, true),
                new java.io.PrintStream(err, true), Map.of("PATH", "/usr/bin:/bin"));
        int code = new RunCommand(file("logging: {level: debug}\nparams: {fusion_threshold_mb: 1}\n"
                + "autotune: {enabled: true}\n"), null).run(List.of("--config-file", "hvd.yaml", "--mpi-flavor", "openmpi",
                "--launcher", "mpirun", "--dry-run", "-np", "2", "hostname"), io);
        String e = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        String o = out.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, code, e);
        assertTrue(e.contains("troika: warning: hvd.yaml: autotune.enabled has no meaning in troika; ignored\n"), e);
        assertTrue(e.contains("troika: hosts from"), "--verbose from logging.level: " + e);
        assertTrue(o.contains(" -x TROIKA_FUSION_THRESHOLD "), o);
    }
}
