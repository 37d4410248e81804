import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.troika.launcher.elastic.Clock;
import org.troika.launcher.elastic.HostManager;
import org.troika.launcher.elastic.ScriptHostDiscovery;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.RunSettings;

/**
 * bench/discovery-cycle.sh's program (issue 23.3): the CPU one elastic discovery cycle costs over a script output of
 * LINES lines, run as a single-file program on the distribution's jars with troika run's JVM flags. A cycle is what
 * the elastic driver does with each discovery: the output's bytes decoded and parsed ({@link ScriptHostDiscovery#parse}),
 * diffed against the usable hosts ({@link HostManager#update}), a failed host blacklisted, and the next plan ({@link
 * HostPlan#assign}, every slot used). Consecutive cycles alternate between two outputs (one host gone and a new one
 * at the end, then back), so every diff finds changes; the clock is a fake one, a second further each cycle.
 *
 * <p>{@code DiscoveryCycle LINES CYCLES} prints {@code LINES cold_ms steady_ms process_ms}: the first cycle's CPU
 * (this thread; a cold JVM: interpreted, then C1), the median of the next CYCLES cycles' thread CPU, and the
 * process's CPU over those cycles divided by their number (garbage collection and compilation included).
 */
public final class DiscoveryCycle {
    public static void main(String[] args) throws Exception {
        int lines = Integer.parseInt(args[0]);
        int cycles = Integer.parseInt(args[1]);
        byte[][] outputs = {output(lines, -1, null), output(lines, lines / 2, "fresh")};
        long[] now = {0};
        Clock clock = new Clock() {
            @Override
            public long millis() {
                return now[0];
            }

            @Override
            public void sleep(Duration d) {
                now[0] += d.toMillis();
            }
        };
        HostManager m = new HostManager(clock, new RunSettings.Cooldown(Duration.ofSeconds(10), Duration.ofSeconds(60)),
                () -> 0);
        var threads = ManagementFactory.getThreadMXBean();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long t0 = threads.getCurrentThreadCpuTime();
        int sink = cycle(m, outputs[0], 0, lines);
        double cold = (threads.getCurrentThreadCpuTime() - t0) / 1e6;
        double[] each = new double[cycles];
        long p0 = os.getProcessCpuTime();
        for (int i = 0; i < cycles; i++) {
            now[0] += 1000;
            long c = threads.getCurrentThreadCpuTime();
            sink += cycle(m, outputs[(i + 1) % 2], i + 1, lines);
            each[i] = (threads.getCurrentThreadCpuTime() - c) / 1e6;
        }
        double process = (os.getProcessCpuTime() - p0) / 1e6 / cycles;
        Arrays.sort(each);
        System.out.printf("%d %.2f %.2f %.2f%n", lines, cold, each[cycles / 2], process);
        if (sink == 42) {
            System.out.println(); // keeps the results alive
        }
    }

    /** One cycle; returns something of its result. */
    private static int cycle(HostManager m, byte[] scriptOutput, int i, int lines) throws Exception {
        List<HostSlots> found = ScriptHostDiscovery.parse(new String(scriptOutput, StandardCharsets.UTF_8), null);
        m.update(found);
        m.blacklist(String.format("node%06d", (i * 7919) % lines));
        HostPlan plan = HostPlan.assign("generation " + i, m.current(), m.availableSlots());
        return plan.size() + plan.layout().length();
    }

    private static byte[] output(int lines, int missing, String extra) {
        StringBuilder b = new StringBuilder(lines * 14);
        for (int i = 0; i < lines; i++) {
            if (i != missing) {
                b.append("node").append(String.format("%06d", i)).append(":8\n");
            }
        }
        if (extra != null) {
            b.append(extra).append(":8\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }
}
