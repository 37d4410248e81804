package org.troika.pbs;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.common.exec.CommandRunner;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.hosts.SlotListParser;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.JobEnvironment;

/**
 * A PBS Pro / OpenPBS / Torque job. It lives in troika-slurm (package {@code org.troika.pbs}) because it is
 * one small reader and shares the module's build and tests; it depends on nothing Slurm-specific.
 *
 * <p>Detected by {@code PBS_JOBID} or {@code PBS_NODEFILE}. Hosts come from the file named by {@code PBS_NODEFILE}:
 * one host per line, repeated once per slot. Hosts keep the order of their first line; a host's slots are the
 * number of its lines (also when its lines are not adjacent). Blank lines and {@code #} comments are ignored.
 * The remote shell is left to the default (ssh), and Open MPI is not assumed to read the allocation (Debian's
 * build has no {@code tm} component), so troika passes the hosts explicitly.
 */
public final class PbsEnvironment implements JobEnvironment {
    static final String JOBID = "PBS_JOBID";
    static final String NODEFILE = "PBS_NODEFILE";

    @Override
    public String name() {
        return "pbs";
    }

    @Override
    public int priority() {
        return 30;
    }

    @Override
    public boolean detect(Map<String, String> env) {
        return present(env, JOBID) || present(env, NODEFILE);
    }

    @Override
    public Allocation allocation(Map<String, String> env, FileSource files, CommandRunner probes) {
        String jobId = present(env, JOBID) ? env.get(JOBID).strip() : "?";
        if (!present(env, NODEFILE)) {
            throw new UsageException("pbs job " + jobId + " has no " + NODEFILE
                    + "; run troika inside the job's shell, or pass -H/--hostfile");
        }
        Path file = Path.of(env.get(NODEFILE).strip());
        List<String> lines = files.readHostLines(NODEFILE + "=" + file, file, "pass -H/--hostfile instead");
        List<HostSlots> hosts = SlotListParser.countPerEntry(NODEFILE + "=" + file, "line", lines);
        return new Allocation(name(), "pbs job " + jobId + " (" + NODEFILE + "=" + file + ")", hosts, 0, null, false);
    }

    private static boolean present(Map<String, String> env, String key) {
        String v = env.get(key);
        return v != null && !v.isBlank();
    }
}
