package org.troika.lsf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.UserText;
import org.troika.launcher.hosts.SlotListParser;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.JobEnvironment;

/**
 * An IBM Spectrum LSF job, plain or CSM-based (Summit-style). Detected by {@code LSB_JOBID}.
 *
 * <p>Hosts and slots, first source present wins:
 * <ol>
 *   <li>CSM: {@code CSM_ALLOCATION_ID} set → {@link CsmAllocation} (compute nodes sorted; slots per node = GPUs per
 *       node, or usable cores when the nodes have no GPUs);</li>
 *   <li>{@code LSB_MCPU_HOSTS}: whitespace-separated {@code host count} pairs;</li>
 *   <li>{@code LSB_DJOB_HOSTFILE}: a file with one host per line per slot;</li>
 *   <li>{@code LSB_HOSTS}: whitespace-separated, one host per slot.</li>
 * </ol>
 * For the one-per-slot forms a host's slots are the number of times it appears; hosts keep first-seen order.
 *
 * <p><b>Launch-node rule</b> (Summit-style allocations list the batch/launch node, where the job script runs but
 * no rank may, as the first entry). For sources 2–4, troika drops
 * <ul>
 *   <li>every host whose name starts with one of the prefixes in {@code TROIKA_LSF_LAUNCH_NODE_PREFIXES}
 *       (comma-separated; default {@code batch,login}; set it to the empty string to drop nothing), and</li>
 *   <li>the first listed host when {@code TROIKA_LSF_SKIP_FIRST_HOST=1} (sites whose launch nodes have other names).</li>
 * </ul>
 * CSM's {@code compute_nodes} never contains the launch node, so the rule does not apply there.
 *
 * <p>GPUs per host: from CSM, else {@code TROIKA_GPUS_PER_HOST} when set, else 0 (unknown).
 * The remote shell is {@code blaunch}; Open MPI is not assumed to read LSF allocations (troika passes the hosts).
 */
public final class LsfEnvironment implements JobEnvironment {
    static final String JOBID = "LSB_JOBID";
    static final String MCPU_HOSTS = "LSB_MCPU_HOSTS";
    static final String DJOB_HOSTFILE = "LSB_DJOB_HOSTFILE";
    static final String HOSTS = "LSB_HOSTS";
    static final String LAUNCH_PREFIXES = "TROIKA_LSF_LAUNCH_NODE_PREFIXES";
    static final String SKIP_FIRST = "TROIKA_LSF_SKIP_FIRST_HOST";
    static final String GPUS = "TROIKA_GPUS_PER_HOST";
    static final String DEFAULT_LAUNCH_PREFIXES = "batch,login";

    @Override
    public String name() {
        return "lsf";
    }

    @Override
    public int priority() {
        return 20;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        return present(env, JOBID);
    }

    @Override
    public Allocation allocation(Map<String, String> env, FileSource files, CommandRunner probes) {
        String job = "lsf job " + env.getOrDefault(JOBID, "?").strip();
        if (CsmAllocation.present(env)) {
            CsmAllocation csm = CsmAllocation.query(env, probes);
            int slots = csm.gpus() > 0 ? csm.gpus() : csm.usableCores();
            List<HostSlots> hosts = csm.computeNodes().stream().map(h -> host(h, slots, "csm_allocation_query")).toList();
            String desc = job + " (CSM allocation " + csm.allocationId() + ", " + hosts.size() + " compute nodes, "
                    + (csm.gpus() > 0 ? csm.gpus() + " GPUs" : csm.usableCores() + " usable cores") + " each)";
            return new Allocation(name(), desc, hosts, csm.gpus(), "blaunch", false);
        }
        List<HostSlots> listed;
        String source;
        if (present(env, MCPU_HOSTS)) {
            listed = parsePairs(env.get(MCPU_HOSTS));
            source = MCPU_HOSTS + "=" + env.get(MCPU_HOSTS).strip();
        } else if (present(env, DJOB_HOSTFILE)) {
            Path file = Path.of(env.get(DJOB_HOSTFILE).strip());
            listed = countSlots(files.readHostLines(DJOB_HOSTFILE + "=" + file, file, "pass -H/--hostfile instead"),
                    DJOB_HOSTFILE + "=" + file);
            source = DJOB_HOSTFILE + "=" + file;
        } else if (present(env, HOSTS)) {
            listed = countSlots(List.of(env.get(HOSTS).strip().split("\\s+")), HOSTS);
            source = HOSTS;
        } else {
            throw new UsageException(job + " has none of " + MCPU_HOSTS + ", " + DJOB_HOSTFILE + ", " + HOSTS
                    + " or CSM_ALLOCATION_ID; run troika inside the job, or pass -H/--hostfile");
        }
        List<HostSlots> compute = dropLaunchNodes(listed, env);
        if (compute.isEmpty()) {
            throw new UsageException(source + " lists only launch nodes (" + names(listed) + "), no compute hosts; "
                    + "adjust " + LAUNCH_PREFIXES + " / " + SKIP_FIRST + " or pass -H");
        }
        return new Allocation(name(), job + " (" + source + ")", compute, gpus(env), "blaunch", false);
    }

    static List<HostSlots> parsePairs(String value) {
        String[] words = value.strip().split("\\s+");
        if (words.length % 2 != 0) {
            throw new UsageException(MCPU_HOSTS + "=" + UserText.quote(value.strip()) + " has " + words.length
                    + " words, expected 'host count' pairs (e.g. 'h1 4 h2 4')");
        }
        Map<String, Long> slots = new LinkedHashMap<>();
        for (int i = 0; i < words.length; i += 2) {
            String where = MCPU_HOSTS + " pair " + (i / 2 + 1) + " ('host count')";
            String name = HostCheck.name(where, words[i]);
            slots.merge(name, (long) HostCheck.slots(where, words[i + 1]), Long::sum);
        }
        List<HostSlots> out = new ArrayList<>();
        slots.forEach((h, n) -> out.add(new HostSlots(h, HostCheck.slots(MCPU_HOSTS + " host '" + h + "'", n))));
        return HostCheck.total(MCPU_HOSTS, out);
    }

    /** One entry per slot → hosts in first-seen order with their counts. */
    static List<HostSlots> countSlots(List<String> perSlot, String source) {
        return SlotListParser.countPerEntry(source, source.startsWith(HOSTS) ? "entry" : "line", perSlot);
    }

    static List<HostSlots> dropLaunchNodes(List<HostSlots> hosts, Map<String, String> env) {
        String prefixes = env.getOrDefault(LAUNCH_PREFIXES, DEFAULT_LAUNCH_PREFIXES);
        List<String> pre = new ArrayList<>();
        for (String p : prefixes.split(",")) {
            if (!p.isBlank()) {
                pre.add(p.strip().toLowerCase(Locale.ROOT));
            }
        }
        boolean skipFirst = "1".equals(env.getOrDefault(SKIP_FIRST, "").strip())
                || "true".equalsIgnoreCase(env.getOrDefault(SKIP_FIRST, "").strip());
        List<HostSlots> out = new ArrayList<>();
        for (int i = 0; i < hosts.size(); i++) {
            String n = hosts.get(i).name().toLowerCase(Locale.ROOT);
            if (skipFirst && i == 0 || pre.stream().anyMatch(n::startsWith)) {
                continue;
            }
            out.add(hosts.get(i));
        }
        return out;
    }

    static int gpus(Map<String, String> env) {
        if (!present(env, GPUS)) {
            return 0;
        }
        String v = env.get(GPUS).strip();
        if (!v.matches("[0-9]{1,4}")) {
            throw new UsageException(GPUS + "='" + v + "' is not a GPU count (expected a number such as 6)");
        }
        return Integer.parseInt(v);
    }

    private static HostSlots host(String name, int slots, String source) {
        return new HostSlots(HostCheck.name(source, name), HostCheck.slots(source, slots));
    }

    private static String names(List<HostSlots> hosts) {
        return String.join(" ", hosts.stream().map(HostSlots::name).toList());
    }

    private static boolean present(Map<String, String> env, String key) {
        String v = env.get(key);
        return v != null && !v.isBlank();
    }
}
