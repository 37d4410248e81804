package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.troika.launcher.cli.Main;
import org.troika.launcher.spi.Subcommand;

class RshSubcommandsTest {
    @Test
    void troikaRshAndTaskServiceAreSubcommandsAndRefuseToRunWithoutTheJobSecret() {
        for (List<String> args : List.of(List.of("rsh", "node1", "orted"), List.of("task-service", "--host", "n1", "--driver", "127.0.0.1:9"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Main.run(args, new Subcommand.Io(new PrintStream(new ByteArrayOutputStream()),
                    new PrintStream(err, true, StandardCharsets.UTF_8), Map.of()));
            assertEquals(2, code, args.toString());
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("TROIKA_SECRET"), err.toString());
        }
    }

    /** Issue 23: one srun step starts many hosts' services; each takes its host word from the variable named. */
    @Test
    void aTaskServiceTakesItsHostFromTheNamedVariableOrSaysItIsNotSet() {
        List<String> args = List.of("task-service", "--host-from-env", "SLURMD_NODENAME", "--driver", "127.0.0.1:9");
        assertEquals("task-service --host-from-env SLURMD_NODENAME: the variable is not set here (it names this host"
                + " inside an srun step; run the service there, or give --host)", refusal(args, Map.of()));
        // set: the host is known, and the next thing missing is the secret
        assertTrue(refusal(args, Map.of("SLURMD_NODENAME", "n2")).contains("TROIKA_SECRET"));
        List<String> both = new java.util.ArrayList<>(args);
        both.addAll(List.of("--host", "n2"));
        assertEquals("task-service: give --host or --host-from-env, not both", refusal(both, Map.of("SLURMD_NODENAME",
                "n2")));
    }

    /** The one-line error of a refused run (exit 2), without its "troika: error: " prefix. */
    private static String refusal(List<String> args, Map<String, String> env) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new Subcommand.Io(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), env));
        String text = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, code, text);
        assertEquals(1, text.lines().count(), text);
        return text.strip().replaceFirst("^troika[^:]*: error: ", "");
    }
}
