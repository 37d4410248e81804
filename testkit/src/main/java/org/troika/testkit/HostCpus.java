package org.troika.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPUs this process's ranks share on this host, as {@code bin/troika-rankenv} counts them before it turns on Open
 * MPI's {@code mpi_yield_when_idle}: the cpuset of this process's cgroup (v1 or v2), else the host's online CPUs.
 * Not the process's own affinity.
 */
public final class HostCpus {
    private HostCpus() {
    }

    public static int count() throws IOException {
        for (String cg : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            Path f;
            int v1 = cg.indexOf(":cpuset:");
            if (v1 >= 0) {
                f = Path.of("/sys/fs/cgroup/cpuset" + cg.substring(v1 + ":cpuset:".length()), "cpuset.effective_cpus");
            } else if (cg.startsWith("0::")) {
                f = Path.of("/sys/fs/cgroup" + cg.substring(3), "cpuset.cpus.effective");
            } else {
                continue;
            }
            if (Files.isReadable(f)) {
                String list = Files.readString(f).trim();
                if (!list.isEmpty()) {
                    return countList(list);
                }
            }
        }
        return countList(Files.readString(Path.of("/sys/devices/system/cpu/online")).trim());
    }

    /** The CPUs of a kernel CPU list such as {@code 0-3,8,10-11}. */
    static int countList(String list) {
        int n = 0;
        for (String r : list.split(",")) {
            r = r.trim();
            int dash = r.indexOf('-');
            n += dash < 0 ? 1 : Integer.parseInt(r.substring(dash + 1)) - Integer.parseInt(r.substring(0, dash)) + 1;
        }
        return n;
    }
}
