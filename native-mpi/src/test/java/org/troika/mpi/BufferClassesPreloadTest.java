package org.troika.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Initialising {@link org.troika.mpi.spi.BufferAddresses} (which every troika-mpi communicator and the {@code mpi}
 * drop-in do before their first call) loads the buffer classes the JDK makes by itself mid-run (a read-only direct
 * byte buffer and direct int views, when String.format first loads locale data), so that they cannot discard
 * compiled MPI calls later. Checked in a fresh JVM's class-loading log; the same JVM without the initialisation
 * shows that the log would tell the difference.
 */
class BufferClassesPreloadTest {
    private static final List<String> CLASSES = List.of("java.nio.DirectByteBufferR", "java.nio.DirectIntBufferU",
            "java.nio.DirectIntBufferRU");

    /** A child JVM's main: initialises BufferAddresses when asked, and does nothing else. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            if (args[0].equals("init")) {
                Class.forName("org.troika.mpi.spi.BufferAddresses", true, Child.class.getClassLoader());
            }
        }
    }

    private static String classesLoaded(String mode) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "-Xshare:auto", "-Xlog:class+load=info",
                "-cp", System.getProperty("java.class.path"), Child.class.getName(), mode))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child JVM did not end");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static boolean loaded(String log, String cls) {
        return log.contains(" " + cls + " ");
    }

    @Test
    void theBufferClassesTheJdkMakesMidRunAreLoadedWithTheCache() throws Exception {
        String without = classesLoaded("none");
        for (String cls : CLASSES) {
            assertFalse(loaded(without, cls), "a bare JVM loaded " + cls + " already: the test shows nothing");
        }
        String with = classesLoaded("init");
        for (String cls : CLASSES) {
            assertTrue(loaded(with, cls), cls + " not loaded by BufferAddresses' initialisation");
        }
    }
}
