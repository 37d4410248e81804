import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.troika.mpi.Mpi;

/**
 * Java side of bench/mpi-init.sh: {@code Mpi.init()} as a rank does it, then prints
 * {@code rank R init_ms W cpu_ms C}: W = wall time from TROIKA_BENCH_T0 (µs since the epoch, taken by the java shim
 * just before it execs the JVM) to Mpi.init's return; C = CPU time of the whole JVM by then (every thread's, plus
 * that of the child processes it waited for, e.g. JNA's ldconfig, in the kernel's 10 ms ticks).
 */
public final class InitProbe {
    public static void main(String[] args) throws Exception {
        try (Mpi mpi = Mpi.init()) {
            java.time.Instant now = java.time.Instant.now();
            long t0 = Long.parseLong(System.getenv("TROIKA_BENCH_T0").replace(".", ""));
            double wallMs = (now.getEpochSecond() * 1_000_000L + now.getNano() / 1000 - t0) / 1e3;
            String line = String.format("rank %d init_ms %.1f cpu_ms %.1f%n", Mpi.world().rank(), wallMs, cpuNs() / 1e6);
            byte[] bytes = line.getBytes();
            System.out.write(bytes, 0, bytes.length); // one write: mpirun's forwarding never splits it
            System.out.flush();
        }
    }

    /** CPU time so far: every thread's (the scheduler's ns counters) and the waited-for children's (ticks). */
    private static long cpuNs() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long sum = (Long.parseLong(f[13]) + Long.parseLong(f[14])) * 10_000_000L; // cutime + cstime, 100 Hz
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    String s = Files.readString(t.resolve("schedstat"));
                    sum += Long.parseLong(s.substring(0, s.indexOf(' ')));
                } catch (java.io.IOException gone) {
                    // a thread that ended meanwhile
                }
            }
        }
        return sum;
    }
}
