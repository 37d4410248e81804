package org.troika.rsh.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.troika.rsh.Liveness;
import org.troika.wire.WireChannel;

/**
 * The launch agent without a JVM (src/main/c/troika-rsh-agent.c) keeps the JVM agent's numbers: what Java defines
 * once, the C file repeats, and this test holds the two equal (the behaviour is NativeAgentTest's, in troika-it).
 */
class NativeAgentConstantsTest {
    private static final Path SOURCE = Path.of("src/main/c/troika-rsh-agent.c");

    private static long constant(String source, String name) {
        Matcher m = Pattern.compile("\\b" + name + " = (\\d+|1 << \\d+)[,;]").matcher(source);
        assertTrue(m.find(), name + " is defined in " + SOURCE);
        String v = m.group(1);
        return v.startsWith("1 << ") ? 1L << Integer.parseInt(v.substring(5)) : Long.parseLong(v);
    }

    @Test
    void theCAgentUsesTheJvmAgentsTimesAndTheWiresLimits() throws Exception {
        String c = Files.readString(SOURCE);
        assertEquals(RshMain.DAEMON_START_MS, constant(c, "DAEMON_START_MS"));
        assertEquals(Liveness.AGENT_TIMEOUT.toMillis(), constant(c, "DEFAULT_LIVENESS_MS"));
        assertEquals(RshMain.CONNECTION_FAILED, constant(c, "CONNECTION_FAILED"));
        assertEquals(WireChannel.VERSION, constant(c, "WIRE_VERSION"));
        assertEquals(WireChannel.DEFAULT_MAX_BODY, constant(c, "MAX_BODY"));
        assertEquals(org.troika.wire.Secret.MIN_BYTES, constant(c, "MIN_KEY_BYTES"));
    }
}
