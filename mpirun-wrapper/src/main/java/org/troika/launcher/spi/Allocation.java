package org.troika.launcher.spi;

import java.util.List;

/**
 * What a batch system granted the current job.
 *
 * @param scheduler short scheduler name ({@code lsf}, {@code slurm}, {@code pbs})
 * @param description for humans, e.g. {@code "slurm job 42 (SLURM_JOB_NODELIST=n[1-3])"}
 * @param hosts compute hosts in allocation order with their slots
 * @param gpusPerHost GPUs per host when known, else 0
 * @param remoteShell the remote shell to start task services with ({@code blaunch}, {@code srun}), or {@code null}
 * @param mpiReadsAllocation whether the MPI launcher reads this allocation itself (Open MPI under Slurm); then the
 *     planner must not pass host arguments that conflict with it
 */
public record Allocation(String scheduler, String description, List<HostSlots> hosts, int gpusPerHost,
        String remoteShell, boolean mpiReadsAllocation) {
    public Allocation {
        hosts = List.copyOf(hosts);
    }

    public int totalSlots() {
        return hosts.stream().mapToInt(HostSlots::slots).sum();
    }
}
