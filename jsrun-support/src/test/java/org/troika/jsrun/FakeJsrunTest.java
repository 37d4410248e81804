package org.troika.jsrun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.jsrun.JsrunFixtures.LSF;
import static org.troika.jsrun.JsrunFixtures.ctx;
import static org.troika.jsrun.JsrunFixtures.settings;
import static org.troika.launcher.options.RunOptionTable.MPI_ARGS;
import static org.troika.launcher.options.RunOptionTable.OUTPUT_FILENAME;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.launcher.spi.BackendPlan;
import org.troika.testkit.Requires;

/**
 * Runs planned jsrun commands against a fake {@code jsrun} on PATH that checks the argv and the ERF file against
 * the documented syntax (and the file's 0600 mode) and then starts the ranks locally.
 */
@Tag("integration")
class FakeJsrunTest {
    @TempDir Path dir;
    private Path bin;
    private Path scratch;

    @BeforeEach
    void installFake() throws IOException {
        Requires.command("bash");
        bin = Files.createDirectory(dir.resolve("bin"));
        scratch = Files.createDirectory(dir.resolve("scratch"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        try (InputStream in = getClass().getResourceAsStream("/jsrun/fake-jsrun")) {
            Files.copy(in, bin.resolve("jsrun"));
        }
        Files.setPosixFilePermissions(bin.resolve("jsrun"), PosixFilePermissions.fromString("rwx------"));
    }

    /** What the executor does: write the plan's files owner-only, then run argv with the plan's env (+ fake PATH). */
    private Result execute(BackendPlan plan) throws Exception {
        for (Map.Entry<Path, String> f : plan.files().entrySet()) {
            Files.writeString(Files.createFile(f.getKey(), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------"))), f.getValue(), StandardOpenOption.WRITE);
        }
        List<String> argv = new ArrayList<>(List.of("/usr/bin/env"));
        argv.addAll(plan.launch().argv());
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        Map<String, String> env = new HashMap<>(plan.launch().env());
        env.put("PATH", bin + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("FAKE_JSRUN_LOG", dir.resolve("jsrun.log").toString());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                throw new AssertionError("fake jsrun did not finish");
            }
            return new Result(p.exitValue(), out);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private record Result(int exitCode, String output) {}

    @Test
    void plannedLaunchPassesTheFakesChecksAndRunsEveryRankWithItsGpu() throws Exception {
        BackendPlan plan = new JsrunBackend().plan(ctx(settings("sh", "-c",
                "echo \"rank=$OMPI_COMM_WORLD_RANK/$OMPI_COMM_WORLD_SIZE host=$FAKE_JSRUN_HOST gpu=$FAKE_JSRUN_GPUS\"")
                .with(MPI_ARGS, List.of("-gpu")), 4, LSF, Map.of(), scratch));
        Result r = execute(plan);
        assertEquals(0, r.exitCode(), r.output());
        List<String> lines = r.output().lines().sorted().toList();
        assertEquals(List.of("rank=0/4 host=h1 gpu=0", "rank=1/4 host=h1 gpu=1", "rank=2/4 host=h2 gpu=0",
                "rank=3/4 host=h2 gpu=1"), lines);
        List<String> log = Files.readAllLines(dir.resolve("jsrun.log"));
        assertTrue(log.containsAll(List.of("--smpiargs", "-gpu")), log::toString);
    }

    @Test
    void hostIndexFormAndStdioFilesAreAccepted() throws Exception {
        Path out = Files.createDirectory(dir.resolve("out"));
        BackendPlan plan = new JsrunBackend().plan(ctx(settings("sh", "-c", "echo r$OMPI_COMM_WORLD_RANK@$FAKE_JSRUN_HOST")
                .with(OUTPUT_FILENAME, out), 3, LSF, Map.of("TROIKA_JSRUN_HOST_KEY", "host"), scratch));
        assertEquals(1, plan.warnings().size(), plan.warnings()::toString);
        Result r = execute(plan);
        assertEquals(0, r.exitCode(), r.output());
        assertEquals(List.of("r0@index1", "r1@index1", "r2@index2"), Files.readAllLines(out.resolve("stdout")).stream().sorted().toList());
    }

    @Test
    void fakeRejectsAnErfThatIsNotOwnerOnly() throws Exception {
        BackendPlan plan = new JsrunBackend().plan(ctx(settings("true"), 1, LSF, Map.of(), scratch));
        Path erf = plan.files().keySet().iterator().next();
        Files.writeString(erf, plan.files().get(erf));
        Files.setPosixFilePermissions(erf, PosixFilePermissions.fromString("rw-r--r--"));
        Result r = execute(plan.withFiles(Map.of()));
        assertEquals(64, r.exitCode(), r.output());
        assertTrue(r.output().contains("expected 600"), r.output());
    }

    @Test
    void fakeRejectsMalformedErfLines() throws Exception {
        BackendPlan plan = new JsrunBackend().plan(ctx(settings("true"), 1, LSF, Map.of(), scratch));
        Path erf = plan.files().keySet().iterator().next();
        BackendPlan broken = plan.withFiles(Map.of(erf, plan.files().get(erf).replace("cpu: {0}", "cpu: 0")));
        Result r = execute(broken);
        assertEquals(64, r.exitCode(), r.output());
        assertTrue(r.output().contains("is not valid ERF syntax"), r.output());
    }
}
