package org.troika.launcher.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;

class VersionProbeCacheTest {
    @TempDir
    Path tmp;

    @Test
    void secondProbeOfTheSameBinaryIsServedFromTheCacheUntilTheBinaryChanges() throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path mpirun = bin.resolve("mpirun");
        Files.writeString(mpirun, "#!/bin/sh\n");
        mpirun.toFile().setExecutable(true);
        AtomicInteger calls = new AtomicInteger();
        CommandRunner real = (argv, t) -> new ProbeResult(0, "mpirun (Open MPI) 4.1." + calls.incrementAndGet() + "\n");
        VersionProbeCache cache = new VersionProbeCache(real, tmp.resolve("cache"), Map.of("PATH", bin.toString()));

        ProbeResult first = cache.run(List.of("mpirun", "--version"), Duration.ofSeconds(1));
        ProbeResult second = cache.run(List.of("mpirun", "--version"), Duration.ofSeconds(1));
        assertEquals("mpirun (Open MPI) 4.1.1\n", first.output());
        assertEquals(first, second);
        assertEquals(1, calls.get());

        Files.setLastModifiedTime(mpirun, FileTime.fromMillis(Files.getLastModifiedTime(mpirun).toMillis() - 60_000));
        assertEquals("mpirun (Open MPI) 4.1.2\n", cache.run(List.of("mpirun", "--version"), Duration.ofSeconds(1)).output());
        assertEquals(2, calls.get());
    }

    @Test
    void failuresAndOtherCommandsAreNotCached() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        CommandRunner real = (argv, t) -> {
            calls.incrementAndGet();
            return new ProbeResult(127, "");
        };
        VersionProbeCache cache = new VersionProbeCache(real, tmp.resolve("cache"), Map.of("PATH", "/nonexistent"));
        cache.run(List.of("/bin/sh", "--version"), Duration.ofSeconds(1));
        cache.run(List.of("/bin/sh", "--version"), Duration.ofSeconds(1));
        cache.run(List.of("mpirun", "-np"), Duration.ofSeconds(1));
        assertEquals(3, calls.get());
    }
}
