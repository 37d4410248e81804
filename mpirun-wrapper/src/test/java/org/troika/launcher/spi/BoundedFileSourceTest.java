package org.troika.launcher.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.UsageException;

/** The one reader of host files: regular files only, size-capped, with a timeout. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BoundedFileSourceTest {
    @TempDir
    Path dir;

    private static Path mkfifo(Path p) throws Exception {
        Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        assertEquals(0, mk.waitFor());
        return p;
    }

    private static String problem(FileSource files, Path p) {
        return assertThrows(UsageException.class, () -> files.readHostLines("hostfile " + p, p, "fix it"))
                .getMessage();
    }

    @Test
    void readsUtf8LinesOfARegularFileAndOfALinkToOne() throws IOException {
        Path f = Files.writeString(dir.resolve("hf"), "a slots=2\r\nb\n\nc # \u00e9\n");
        Path link = Files.createSymbolicLink(dir.resolve("link"), f);
        List<String> expected = List.of("a slots=2", "b", "", "c # \u00e9");
        assertEquals(expected, FileSource.system().readLines(f));
        assertEquals(expected, FileSource.system().readLines(link));
    }

    @Test
    void refusesFifosDevicesAndDirectoriesBeforeOpeningThem() throws Exception {
        Path fifo = mkfifo(dir.resolve("fifo"));
        FileSource files = FileSource.system();
        long start = System.nanoTime();
        assertEquals("hostfile " + fifo + " is a FIFO, not a regular file; fix it", problem(files, fifo));
        assertEquals("hostfile /dev/zero is a character device, not a regular file; fix it",
                problem(files, Path.of("/dev/zero")));
        assertEquals("hostfile " + dir + " is a directory, not a regular file; fix it", problem(files, dir));
        Path linkToFifo = Files.createSymbolicLink(dir.resolve("l"), fifo);
        assertTrue(problem(files, linkToFifo).contains("is a FIFO"));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "no read was attempted");
    }

    @Test
    void refusesFilesAboveTheSizeCap() throws IOException {
        Path f = Files.writeString(dir.resolve("big"), "a\n".repeat(600));
        FileSource small = new BoundedFileSource(1000, Duration.ofSeconds(10), true);
        assertEquals("hostfile " + f + " is 1200 bytes, more than the 1000-byte limit for host files; fix it",
                problem(small, f));
        assertEquals(64L << 20, FileSource.MAX_BYTES);
    }

    @Test
    void namesMissingUnreadableAndNonUtf8Files() throws IOException {
        FileSource files = FileSource.system();
        Path missing = dir.resolve("missing");
        assertThrows(NoSuchFileException.class, () -> files.readLines(missing));
        assertEquals("hostfile " + missing + " does not exist; fix it", problem(files, missing));
        Path latin1 = Files.write(dir.resolve("latin1"), new byte[] {'a', (byte) 0xe9, '\n'});
        assertEquals("hostfile " + latin1 + " is not UTF-8 text; fix it", problem(files, latin1));
    }

    @Test
    void givesUpOnAFileThatBlocksAfterTheTimeout() throws Exception {
        // with the type check off, a FIFO without a writer blocks in open(): the reader must still return
        Path fifo = mkfifo(dir.resolve("slow"));
        FileSource files = new BoundedFileSource(1000, Duration.ofMillis(300), false);
        long start = System.nanoTime();
        String msg = problem(files, fifo);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(msg.contains("could not be read within 0.3 s"), msg);
        assertTrue(tookMs < 10_000, "took " + tookMs + " ms");
        try (FileOutputStream unblock = new FileOutputStream(fifo.toFile())) {
            unblock.write('\n'); // lets the abandoned reader thread finish
        }
    }
}
