package org.troika.templates;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.troika.testkit.Requires;

/** Runs the rendered scripts through bash: {@code bash -n}, then for real with a stand-in troika. */
@Tag("integration")
class TemplateScriptTest {
    private static final List<String> NASTY = List.of("sh", "-c", "echo \"$1\" 'it''s' $((1+1)) `x` \\", "--",
            "two words", "", "line\nbreak", "*", "~", "#x");

    private static String bash(Path dir, List<String> argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("bash did not finish");
            }
            assertEquals(0, p.exitValue(), out);
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"slurm", "lsf", "pbs"})
    void renderedScriptPassesBashSyntaxCheckAndPassesTheCommandUnchanged(String system, @TempDir Path dir)
            throws Exception {
        Path bashExe = Requires.command("bash");
        // a stand-in for troika that prints each argument on its own NUL-terminated record
        Path fake = dir.resolve("fake troika");
        Files.writeString(fake, "#!/bin/bash\nprintf '%s\\0' \"$@\"\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        List<String> args = new java.util.ArrayList<>(List.of(system, "-N", "2", "-n", "3", "-g", "1", "-t", "10",
                "-J", "j", "-A", "a", "-p", "q", "-o", "out.%j", "--troika", fake.toString(), "--"));
        args.addAll(NASTY);
        String script = TemplateCommandTest.template(args.toArray(String[]::new));
        Path file = dir.resolve(system + ".sh");
        Files.writeString(file, script);
        bash(dir, List.of(bashExe.toString(), "-n", file.toString()));
        String out = bash(dir, List.of(bashExe.toString(), file.toString()));
        List<String> words = List.of(out.split("\0", -1));
        assertEquals(NASTY, words.subList(1, words.size() - 1));
        assertEquals("run", words.get(0));
    }
}
