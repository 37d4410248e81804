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
 * drop-in do before their first call) loads every JDK class of direct buffer, so that no class loaded later (a
 * read-only buffer the JDK makes for itself) can discard compiled MPI calls. Checked in a fresh JVM's class-loading
 * log; the same JVM without the initialisation shows that the log would tell the difference.
 */
class BufferClassesPreloadTest {
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
    void everyReadOnlyDirectBufferClassIsLoadedWithTheCache() throws Exception {
        String without = classesLoaded("none");
        assertFalse(loaded(without, "java.nio.DirectByteBufferR"), "a bare JVM loaded it already: the test shows nothing");
        String with = classesLoaded("init");
        for (String cls : List.of("java.nio.DirectByteBufferR", "java.nio.DirectIntBufferRU", "java.nio.DirectIntBufferRS",
                "java.nio.DirectLongBufferRU", "java.nio.DirectFloatBufferRU", "java.nio.DirectDoubleBufferRU",
                "java.nio.DirectDoubleBufferRS", "java.nio.DirectShortBufferRU", "java.nio.DirectCharBufferRU")) {
            assertTrue(loaded(with, cls), cls + " not loaded by BufferAddresses' initialisation");
        }
    }
}
