package org.troika.launcher.hosts;

import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.HostPlan;
import java.util.List;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.JobEnvironment;

/**
 * Decides which hosts a static launch uses. Precedence:
 * <ol>
 *   <li>explicit hosts ({@code -H} or {@code --hostfile}): {@code -np} defaults to all their slots;</li>
 *   <li>a batch allocation (the first detected {@link JobEnvironment} by priority): {@code -np} defaults to all its
 *       slots, and {@code -np N} alone takes the first N slots in allocation order;</li>
 *   <li>otherwise {@code localhost:<np>}, which needs {@code -np}.</li>
 * </ol>
 * Pure apart from what the job environments read through {@code files} and {@code probes}.
 */
public final class HostResolver {
    private HostResolver() {}

    /** The resolved plan and, inside a batch job, its allocation (else {@code null}). */
    public record Resolved(HostPlan plan, Allocation allocation) {}

    public static Resolved resolve(RunSettings s, Map<String, String> env, List<JobEnvironment> environments,
            FileSource files, CommandRunner probes) {
        if (!s.hosts().list().isEmpty()) {
            return new Resolved(assign(s.hosts().source(), s.hosts().list(), s.hosts().np()), null);
        }
        JobEnvironment job = detect(env, environments);
        if (job != null) {
            Allocation a = job.allocation(env, files, probes);
            if (a.hosts().isEmpty()) {
                throw new UsageException(a.description() + " has no hosts; check the job's allocation or pass -H");
            }
            return new Resolved(assign(a.description(), a.hosts(), s.hosts().np()), a);
        }
        if (s.hosts().np() == null) {
            throw new UsageException("no hosts given and no batch allocation found; pass -np N (runs on localhost) "
                    + "or -H host:slots,... or --hostfile FILE");
        }
        return new Resolved(assign("localhost (no hosts given)", List.of(new HostSlots("localhost", s.hosts().np())),
                s.hosts().np()),
                null);
    }

    /**
     * The batch system whose job this is, or {@code null}: of those that detect their job in {@code env}, the one
     * with the lowest priority, then name. (A loop, not a sorted stream: this is on every run's start-up path, where
     * the JDK's comparator lambdas are generated at run time.)
     */
    public static JobEnvironment detect(Map<String, String> env, List<JobEnvironment> environments) {
        JobEnvironment best = null;
        for (JobEnvironment j : environments) {
            if ((best == null || j.priority() < best.priority()
                    || j.priority() == best.priority() && j.name().compareTo(best.name()) < 0) && j.detect(env)) {
                best = j;
            }
        }
        return best;
    }

    private static HostPlan assign(String source, List<HostSlots> hosts, Integer np) {
        int total = (int) HostCheck.total(source, hosts).stream().mapToLong(HostSlots::slots).sum();
        int n = np == null ? total : np;
        if (n > total) {
            throw new UsageException("-np " + n + " is more than the " + total + " slots of " + source
                    + "; lower -np or add hosts/slots");
        }
        return HostPlan.assign(source, hosts, n);
    }
}
