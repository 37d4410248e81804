package org.troika.worker.elastic;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeStateStoreTest {
    @TempDir
    Path base;

    @Test
    void writesAtomicallyIntoAPrivateDirectoryAndReadsBack() throws Exception {
        NodeStateStore s = new NodeStateStore(base, "job-1");
        assertEquals(Optional.empty(), s.read());
        s.write(new byte[] {1, 2, 3});
        s.write(new byte[] {4, 5});
        assertArrayEquals(new byte[] {4, 5}, s.read().orElseThrow());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(s.directory())));
        try (Stream<Path> files = Files.list(s.directory())) {
            assertEquals(List.of("state.bin"), files.map(p -> p.getFileName().toString()).toList());
        }
        s.delete();
        assertFalse(Files.exists(s.directory()));
    }

    @Test
    void concurrentWritersOnOneNodeNeverLeaveATornFile() throws Exception {
        NodeStateStore s = new NodeStateStore(base, "shared");
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> writers = Stream.of((byte) 1, (byte) 2, (byte) 3).<Future<?>>map(v -> pool.submit(() -> {
                byte[] payload = new byte[64 * 1024];
                java.util.Arrays.fill(payload, v);
                for (int i = 0; i < 30; i++) {
                    s.write(payload);
                    byte[] seen = s.read().orElseThrow();
                    assertEquals(payload.length, seen.length);
                    for (byte b : seen) {
                        assertEquals(seen[0], b);
                    }
                }
            })).toList();
            for (Future<?> f : writers) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void reportsADamagedFile() throws Exception {
        NodeStateStore s = new NodeStateStore(base, "j");
        s.write(new byte[] {9, 9, 9, 9});
        Path file = s.directory().resolve("state.bin");
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 1] ^= 1;
        Files.write(file, bytes);
        assertTrue(assertThrows(IllegalStateException.class, s::read).getMessage().endsWith("damaged (checksum mismatch)"));
        Files.write(file, new byte[] {1, 2});
        assertThrows(IllegalStateException.class, s::read);
    }

    @Test
    void refusesADirectoryOthersCanReadOrALink() throws Exception {
        NodeStateStore open = new NodeStateStore(base, "open");
        Files.createDirectory(open.directory(), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        NodeStateStore linked = new NodeStateStore(base, "linked");
        Path target = Files.createDirectory(base.resolve("elsewhere"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.createSymbolicLink(linked.directory(), target);
        assertAll(
                () -> assertThrows(UncheckedIOException.class, () -> open.write(new byte[] {1})),
                () -> assertThrows(UncheckedIOException.class, () -> linked.write(new byte[] {1})),
                () -> assertThrows(UncheckedIOException.class, linked::read));
    }

    @Test
    void rejectsJobIdsThatCouldLeaveTheBase() {
        for (String bad : new String[] {"", "../x", "a/b", ".hidden", "a b", "x".repeat(65)}) {
            assertThrows(IllegalArgumentException.class, () -> new NodeStateStore(base, bad), bad);
        }
    }
}
