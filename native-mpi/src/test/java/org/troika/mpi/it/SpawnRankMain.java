package org.troika.mpi.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.troika.mpi.Communicator;
import org.troika.mpi.Intercommunicator;
import org.troika.mpi.Mpi;
import org.troika.mpi.MpiException;
import org.troika.mpi.Op;
import org.troika.mpi.Spawn;

/**
 * A rank of {@code SpawnIntegrationTest}: the world spawns {@code COUNT} more processes of this very command line
 * (read as bytes from {@code /proc/self/cmdline}), parents and children merge (parents first), and every rank of the
 * merged world prints {@code merged rank R of N sum S parent P} where S is the allreduce of 1 per rank. When the spawn
 * fails every parent prints {@code spawn failed: <class> <message>} and exits 3.
 */
public final class SpawnRankMain {
    private SpawnRankMain() {}

    public static void main(String[] args) throws IOException {
        int count = Integer.parseInt(args[0]);
        int code = 0;
        try (Mpi mpi = Mpi.init()) {
            Optional<Intercommunicator> parent = Mpi.parent();
            Communicator merged;
            if (parent.isPresent()) {
                try (Intercommunicator p = parent.get()) {
                    merged = p.merge(true);
                }
            } else {
                Communicator world = Mpi.world();
                try (Intercommunicator children = world.spawn(new Spawn(ownCommandLine(), count, Map.of()), 0)) {
                    if (children.remoteSize() != count) {
                        throw new AssertionError("remote size " + children.remoteSize());
                    }
                    merged = children.merge(false);
                } catch (MpiException e) {
                    System.out.println("spawn failed: " + e.getClass().getSimpleName() + " " + e.getMessage());
                    System.out.flush();
                    System.exit(3);
                    return;
                }
            }
            int[] sum = new int[1];
            merged.allreduce(new int[] {1}, sum, Op.SUM);
            System.out.println("merged rank " + merged.rank() + " of " + merged.size() + " sum " + sum[0] + " parent "
                    + parent.isPresent());
            merged.close();
        }
        System.exit(code);
    }

    /** This process's argv as the kernel has it (the JVM's own words, exactly). */
    static List<byte[]> ownCommandLine() throws IOException {
        return org.troika.common.SpawnCommand.words(Files.readAllBytes(Path.of("/proc/self/cmdline")));
    }
}
