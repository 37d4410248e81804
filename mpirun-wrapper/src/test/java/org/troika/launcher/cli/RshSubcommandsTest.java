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
}
