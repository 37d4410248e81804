package org.troika.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Compiles small C MPI test programs with {@code mpicc} (Open MPI's wrapper compiler). */
public final class CPrograms {
    private CPrograms() {}

    /**
     * Writes {@code source} to {@code dir/name.c}, compiles it to {@code dir/name} and returns the binary.
     * Requires {@code mpicc} (see {@link Requires#command}).
     *
     * @throws IOException when mpicc fails (its output is the message) or takes more than two minutes
     */
    public static Path compile(Path dir, String name, String source) throws IOException, InterruptedException {
        Path mpicc = Requires.command("mpicc");
        Path src = dir.resolve(name + ".c");
        Path bin = dir.resolve(name);
        Files.writeString(src, source);
        Process p = new ProcessBuilder(List.of(mpicc.toString(), "-O1", "-o", bin.toString(), src.toString()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("mpicc failed: " + out);
        }
        return bin;
    }
}
