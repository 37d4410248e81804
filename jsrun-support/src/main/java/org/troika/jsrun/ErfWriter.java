package org.troika.jsrun;

import java.util.List;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.SlotInfo;

/**
 * Writes the text of a jsrun explicit resource file (ERF) for a rank table. Pure: the executor writes the file
 * (owner-only, in the launch's scratch directory).
 *
 * <p>Layout: a preamble ({@code cpu_index_using}, {@code overlapping_rs: allow}), then per host a blank line and one
 * line per rank, e.g. {@code rank: 0: { hostname: a01n01; cpu: {0-27}; gpu: {0}; mem: * }}.
 * <ul>
 *   <li>CPUs per host = cores × threads per core. With GPUs, each rank owns one GPU (its local rank) and
 *       {@code floor(cpus / GPUs)} CPUs; a host with more ranks than GPUs is an error. Without GPUs, the host's CPUs
 *       are split evenly among its ranks and no {@code gpu} key is written.</li>
 *   <li>Local rank k gets the CPU range starting at {@code k × cpusPerRank}.</li>
 * </ul>
 */
public final class ErfWriter {
    /** Most CPUs per host an ERF can describe (cores x threads per core; far beyond any node built). */
    static final int MAX_CPUS_PER_HOST = 1 << 16;

    private ErfWriter() {}

    /**
     * @param plan the rank table
     * @param allocatedHosts the allocation's compute hosts in order (for {@code host: INDEX} keys and membership),
     *     or the plan's hosts outside an allocation
     * @param gpusPerHost GPUs per host, 0 when none or unknown
     * @param coresPerHost usable cores per host
     * @param opts host key form, threads per core, CPU index mode
     */
    public static String render(HostPlan plan, List<String> allocatedHosts, int gpusPerHost, int coresPerHost,
            JsrunOptions opts) {
        long cpus = (long) coresPerHost * opts.threadsPerCore();
        if (cpus > MAX_CPUS_PER_HOST) {
            throw new UsageException(JsrunOptions.CORES + " x " + JsrunOptions.THREADS + " gives " + cpus
                    + " CPUs per host, more than " + MAX_CPUS_PER_HOST + "; check both values");
        }
        int cpusPerHost = (int) cpus;
        StringBuilder sb = new StringBuilder();
        sb.append("cpu_index_using: ").append(opts.cpuIndex()).append('\n');
        sb.append("overlapping_rs: allow\n");
        String current = null;
        int cpusPerRank = 0;
        for (SlotInfo s : plan.slots()) {
            if (!s.host().equals(current)) {
                current = s.host();
                cpusPerRank = cpusPerRank(current, s.localSize(), gpusPerHost, cpusPerHost);
                sb.append('\n');
            }
            int first = s.localRank() * cpusPerRank;
            int last = first + cpusPerRank - 1;
            sb.append("rank: ").append(s.rank()).append(": { ").append(hostKey(s.host(), allocatedHosts, opts))
                    .append("; cpu: {").append(first == last ? String.valueOf(first) : first + "-" + last).append('}');
            if (gpusPerHost > 0) {
                sb.append("; gpu: {").append(s.localRank()).append('}');
            }
            sb.append("; mem: * }\n");
        }
        return sb.toString();
    }

    /** The default cores per host: the largest slot count in the allocation (LSF gives one slot per core). */
    public static int defaultCores(List<HostSlots> allocated) {
        return allocated.stream().mapToInt(HostSlots::slots).max().orElse(1);
    }

    private static int cpusPerRank(String host, int ranks, int gpus, int cpusPerHost) {
        if (gpus > 0 && ranks > gpus) {
            throw new UsageException("host " + host + " would run " + ranks + " ranks but has only " + gpus
                    + " GPUs (one rank per GPU under jsrun); lower -np or request more hosts");
        }
        int per = cpusPerHost / (gpus > 0 ? gpus : ranks);
        if (per < 1) {
            throw new UsageException("host " + host + " has " + cpusPerHost + " CPUs for " + (gpus > 0 ? gpus + " GPUs"
                    : ranks + " ranks") + ": less than one CPU each; set " + JsrunOptions.CORES + " / "
                    + JsrunOptions.THREADS + " or lower -np");
        }
        return per;
    }

    private static String hostKey(String host, List<String> allocated, JsrunOptions opts) {
        int index = allocated.indexOf(host);
        if (index < 0) {
            throw new UsageException("host " + host + " is not one of the allocation's compute hosts " + allocated
                    + "; jsrun can place ranks only on allocated hosts");
        }
        return opts.hostKey() == JsrunOptions.HostKey.HOSTNAME ? "hostname: " + host : "host: " + (index + 1);
    }
}
