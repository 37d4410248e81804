package org.troika.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.JobEnvironment;

/**
 * A Slurm job ({@code sbatch}, {@code salloc}, or a shell inside one).
 *
 * <p>Read, in this order of precedence:
 * <ol>
 *   <li>job marker: {@code SLURM_JOB_ID}, else the older {@code SLURM_JOBID};</li>
 *   <li>hosts: {@code SLURM_JOB_NODELIST}, else {@code SLURM_NODELIST} (full hostlist syntax, see {@link Hostlist});</li>
 *   <li>slots per host: {@code SLURM_TASKS_PER_NODE}, else {@code SLURM_JOB_CPUS_PER_NODE} (see {@link TasksPerNode});</li>
 *   <li>GPUs per host: {@code SLURM_GPUS_ON_NODE}, else the count in {@code SLURM_GPUS_PER_NODE}
 *       ({@code 4} or {@code type:4}), else 0.</li>
 * </ol>
 * Open MPI reads a Slurm allocation itself (ras/plm slurm), so the allocation says
 * {@code mpiReadsAllocation=true}: the planner must not add a {@code -H} that disagrees with Slurm's node names.
 */
public final class SlurmEnvironment implements JobEnvironment {
    static final String JOB_ID = "SLURM_JOB_ID";
    static final String JOBID_OLD = "SLURM_JOBID";
    static final String NODELIST = "SLURM_JOB_NODELIST";
    static final String NODELIST_OLD = "SLURM_NODELIST";
    static final String TASKS_PER_NODE = "SLURM_TASKS_PER_NODE";
    static final String CPUS_PER_NODE = "SLURM_JOB_CPUS_PER_NODE";
    static final String GPUS_ON_NODE = "SLURM_GPUS_ON_NODE";
    static final String GPUS_PER_NODE = "SLURM_GPUS_PER_NODE";

    @Override
    public String name() {
        return "slurm";
    }

    /** Slurm first: its {@code generate_pbs_nodefile} helper may also set PBS variables inside a Slurm job. */
    @Override
    public int priority() {
        return 10;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        return present(env, JOB_ID) || present(env, JOBID_OLD);
    }

    @Override
    public Allocation allocation(Map<String, String> env, FileSource files, CommandRunner probes) {
        String jobId = present(env, JOB_ID) ? env.get(JOB_ID).strip() : env.getOrDefault(JOBID_OLD, "").strip();
        String listVar = present(env, NODELIST) ? NODELIST : NODELIST_OLD;
        if (!present(env, listVar)) {
            throw new UsageException("slurm job " + jobId + " has no " + NODELIST + " (nor " + NODELIST_OLD
                    + "); run troika inside the job's shell, or pass -H/--hostfile");
        }
        List<String> names = Hostlist.expand(env.get(listVar), listVar);
        String countVar = present(env, TASKS_PER_NODE) ? TASKS_PER_NODE : CPUS_PER_NODE;
        if (!present(env, countVar)) {
            throw new UsageException("slurm job " + jobId + " has neither " + TASKS_PER_NODE + " nor " + CPUS_PER_NODE
                    + "; pass -np and -H explicitly");
        }
        List<Integer> counts = TasksPerNode.expand(env.get(countVar), countVar, names.size(), listVar);
        List<HostSlots> hosts = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            String where = listVar + " host " + (i + 1);
            hosts.add(new HostSlots(HostCheck.name(where, names.get(i)), HostCheck.slots(where, counts.get(i))));
        }
        String description = "slurm job " + jobId + " (" + listVar + "=" + env.get(listVar).strip() + ", " + countVar
                + "=" + env.get(countVar).strip() + ")";
        return new Allocation(name(), description, hosts, gpus(env), "srun", true);
    }

    static int gpus(Map<String, String> env) {
        if (present(env, GPUS_ON_NODE)) {
            return parseCount(env.get(GPUS_ON_NODE), GPUS_ON_NODE);
        }
        if (present(env, GPUS_PER_NODE)) {
            String v = env.get(GPUS_PER_NODE).strip();
            // "4", "a100:4"; several types ("a100:2,v100:2") add up
            int sum = 0;
            for (String part : v.split(",")) {
                String count = part.substring(part.lastIndexOf(':') + 1);
                sum += parseCount(count, GPUS_PER_NODE + " (" + v + ")");
            }
            return sum;
        }
        return 0;
    }

    private static int parseCount(String v, String source) {
        String s = v.strip();
        if (!s.matches("[0-9]{1,6}")) {
            throw new UsageException(source + "='" + v + "' is not a GPU count (expected a number such as 4)");
        }
        return Integer.parseInt(s);
    }

    static boolean present(Map<String, String> env, String key) {
        String v = env.get(key);
        return v != null && !v.isBlank();
    }
}
