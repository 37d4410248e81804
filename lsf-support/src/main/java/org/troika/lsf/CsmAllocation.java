package org.troika.lsf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.common.exec.CommandRunner.ProbeResult;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.UserText;

/**
 * An IBM CSM allocation (Summit-style LSF), read with CSM's query tools.
 *
 * <ol>
 *   <li>{@code <csm bin>/csm_allocation_query -a <CSM_ALLOCATION_ID>} gives {@code compute_nodes} (list) and
 *       {@code isolated_cores} (cores held back per socket).</li>
 *   <li>{@code <csm bin>/csm_node_attributes_query -n <first compute node as listed>} gives, under
 *       {@code Record_1}, {@code discovered_cores}, {@code discovered_sockets} and {@code discovered_gpus}.</li>
 * </ol>
 * Compute nodes are returned sorted by name; they are the compute nodes only (the launch node is not in the
 * list). {@code <csm bin>} is {@code /opt/ibm/csm/bin}, or {@code TROIKA_CSM_BIN} when set.
 *
 * @param allocationId the CSM allocation id
 * @param computeNodes sorted compute node names
 * @param usableCores cores per node minus {@code sockets × isolated_cores}
 * @param gpus GPUs per node
 */
record CsmAllocation(String allocationId, List<String> computeNodes, int usableCores, int gpus) {
    static final String ALLOCATION_ID = "CSM_ALLOCATION_ID";
    static final String BIN_ENV = "TROIKA_CSM_BIN";
    static final String DEFAULT_BIN = "/opt/ibm/csm/bin";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    CsmAllocation {
        computeNodes = List.copyOf(computeNodes);
    }

    static boolean present(Map<String, String> env) {
        String id = env.get(ALLOCATION_ID);
        return id != null && !id.isBlank();
    }

    static CsmAllocation query(Map<String, String> env, CommandRunner probes) {
        String id = env.get(ALLOCATION_ID).strip();
        if (!id.matches("[0-9]{1,19}")) {
            throw new UsageException(ALLOCATION_ID + "=" + UserText.quote(id) + " is not an allocation id (a number);"
                    + " unset it to use LSB_MCPU_HOSTS instead");
        }
        String bin = env.getOrDefault(BIN_ENV, DEFAULT_BIN);
        SimpleYaml alloc = run(probes, List.of(bin + "/csm_allocation_query", "-a", id));
        List<String> nodes = alloc.list("compute_nodes");
        if (nodes == null || nodes.isEmpty()) {
            throw new UsageException("csm_allocation_query -a " + id + " lists no compute_nodes; check "
                    + ALLOCATION_ID + " or pass -H/--hostfile");
        }
        for (String n : nodes) { // before the first one becomes an argument of the next query
            HostCheck.name("csm_allocation_query -a " + id + " compute_nodes", n);
        }
        int isolated = number(alloc.scalar(null, "isolated_cores"), "isolated_cores", "csm_allocation_query", 0);
        SimpleYaml attrs = run(probes, List.of(bin + "/csm_node_attributes_query", "-n", nodes.get(0)));
        int cores = number(attrs.scalar("Record_1", "discovered_cores"), "discovered_cores", "csm_node_attributes_query", -1);
        int sockets = number(attrs.scalar("Record_1", "discovered_sockets"), "discovered_sockets",
                "csm_node_attributes_query", -1);
        int gpus = number(attrs.scalar("Record_1", "discovered_gpus"), "discovered_gpus", "csm_node_attributes_query", 0);
        int usable = cores - sockets * isolated;
        if (usable < 1) {
            throw new UsageException("CSM reports " + cores + " cores, " + sockets + " sockets and " + isolated
                    + " isolated cores per socket: no usable cores; pass -H/--hostfile");
        }
        List<String> sorted = new ArrayList<>(nodes);
        sorted.sort(null);
        return new CsmAllocation(id, sorted, usable, gpus);
    }

    private static SimpleYaml run(CommandRunner probes, List<String> argv) {
        ProbeResult r = probes.run(argv, TIMEOUT);
        if (!r.ok()) {
            String first = r.output().strip().lines().findFirst().orElse("");
            throw new UsageException(String.join(" ", argv) + " failed with exit code " + r.exitCode()
                    + (first.isEmpty() ? "" : " (" + first + ")") + "; unset " + ALLOCATION_ID
                    + " to use LSB_MCPU_HOSTS instead, or set " + BIN_ENV);
        }
        return new SimpleYaml(r.output());
    }

    private static int number(String v, String key, String tool, int dflt) {
        if (v == null) {
            if (dflt >= 0) {
                return dflt;
            }
            throw new UsageException(tool + " output has no " + key + "; cannot size the allocation, pass -H/--hostfile");
        }
        if (!v.matches("[0-9]{1,6}")) {
            throw new UsageException(tool + " output has " + key + ": '" + v + "', expected a number");
        }
        return Integer.parseInt(v);
    }
}
