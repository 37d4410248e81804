package org.troika.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Compiles small C MPI test programs with the MPI's wrapper compiler ({@code mpicc}, {@code mpicc.mpich}). */
public final class CPrograms {
    private CPrograms() {}

    /**
     * Writes {@code source} to {@code dir/name.c}, compiles it to {@code dir/name} and returns the binary.
     * Requires {@code mpicc} (see {@link Requires#command}).
     *
     * @throws IOException when mpicc fails (its output is the message) or takes more than two minutes
     */
    public static Path compile(Path dir, String name, String source) throws IOException, InterruptedException {
        return compile(MpiJob.Launcher.OPEN_MPI, dir, name, source);
    }

    /**
     * Compiles for the MPI under test: {@code dir/name} then runs under that MPI's launcher (inside the Open MPI 5
     * root for {@link MpiJob.Launcher#OPEN_MPI_5}; {@code dir} must be one of the folders shared with it, e.g. under
     * /tmp). Skipped outside CI, failed under CI, when that MPI is not installed.
     */
    public static Path compile(MpiJob.Launcher mpi, Path dir, String name, String source)
            throws IOException, InterruptedException {
        mpi.require();
        if (!mpi.inRoot()) {
            Requires.command(mpi.compiler());
        }
        Path src = dir.resolve(name + ".c");
        Path bin = dir.resolve(name);
        Files.writeString(src, source);
        ProcessBuilder pb = new ProcessBuilder(mpi.wrap(List.of(mpi.compiler(), "-O1", "-o", bin.toString(),
                src.toString()))).redirectErrorStream(true);
        mpi.applyEnvironment(pb.environment());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("mpicc failed: " + out);
        }
        return bin;
    }
}
