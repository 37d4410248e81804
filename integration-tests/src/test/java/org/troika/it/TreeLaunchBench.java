package org.troika.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.troika.testkit.CPrograms;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.NetnsCluster;

/**
 * Issue 23.4's real-size run, as a benchmark ({@code bench/tree-launch.sh}, not a test): {@code troika run -np N
 * --remote-shell 'ip netns exec {host}'} of an MPI hello (MPI_Init, an allreduce, MPI_Finalize) through real task
 * services and real Open MPI daemons on N namespace hosts, one slot each, N = SMALL and LARGE (default 8 and 64)
 * alternating in one run, on Open MPI 4 and/or 5. Per launch: the wall time of the whole {@code troika run} (task
 * services started, detection, daemons, ranks, teardown), the launch agents alive at once on the launch node (the
 * process table sampled every 100 ms, {@link AgentSampler}), their summed RSS at that moment, the agents started on
 * the hosts (the tree), and whether anything was left on any host (processes, /tmp, /dev/shm). Prints one line per
 * launch and, per MPI, the medians and T(LARGE) / T(SMALL) against the linear bound LARGE / SMALL.
 *
 * <p>{@code java -cp <integration-tests test class path> org.troika.it.TreeLaunchBench RUNS WORKDIR SUBNET MPIS SIZES
 * [SHAPE]}: MPIS {@code ompi4,ompi5}; SIZES {@code 8,64}; SHAPE {@code tree} (troika's plan) or {@code flat} (the
 * plan before issue 23.1: Horovod's flat launch given through --mpi-args, to compare), {@code flat:C} the same with C
 * launches in flight. A launch that does not end in {@link RunSupport#TIMEOUT_S} s is reported as a hang.
 */
public final class TreeLaunchBench {
    private TreeLaunchBench() {}

    public static void main(String[] args) throws Exception {
        int runs = Integer.parseInt(args[0]);
        Path work = Files.createDirectories(Path.of(args[1]));
        int subnet = Integer.parseInt(args[2]);
        List<Launcher> mpis = Arrays.stream(args[3].split(",")).map(m -> m.equals("ompi5") ? Launcher.OPEN_MPI_5
                : Launcher.OPEN_MPI).toList();
        int[] sizes = Arrays.stream(args[4].split(",")).mapToInt(Integer::parseInt).toArray();
        boolean flat = args.length > 5 && args[5].startsWith("flat");
        // "flat:C": the flat launch with C launches in flight (Open MPI 5.0.7 was recorded hanging below the hosts)
        Integer concurrent = flat && args[5].startsWith("flat:") ? Integer.valueOf(args[5].substring(5)) : null;
        int largest = Arrays.stream(sizes).max().orElseThrow();
        boolean clean = true;
        // killed (the script's trap, Ctrl-C): NetnsCluster's own shutdown hook deletes the 64 namespaces and their processes
        // BENCH_PRIVATE_PIDS=1: every host has its own process table (a walk through /proc reads that host's only)
        boolean privatePids = "1".equals(System.getenv("BENCH_PRIVATE_PIDS"));
        // BENCH_ACCT=1: each launch under BSD process accounting (accton, dump-acct: Debian's acct), CPU per process kind
        boolean accounting = "1".equals(System.getenv("BENCH_ACCT"));
        if (privatePids && mpis.contains(Launcher.OPEN_MPI_5)) {
            System.err.println("tree-launch: BENCH_PRIVATE_PIDS=1 needs the hosts' mount namespaces, which the Open MPI 5"
                    + " root cannot enter: run it with MPIS=ompi4");
            System.exit(2);
        }
        NetnsCluster c = privatePids ? NetnsCluster.withPrivatePids("tlb", subnet, largest, List.of(work))
                : NetnsCluster.create("tlb", subnet, largest);
        String remoteShell = privatePids ? c.remoteShell() : "ip netns exec {host}";
        try {
            List<String> all = c.hosts().stream().map(NetnsCluster.Host::address).toList();
            for (Launcher mpi : mpis) {
                mpi.require();
                Path hello = CPrograms.compile(mpi, Files.createDirectories(work.resolve(mpi.name())), "hello",
                        RelayRunTest.HELLO_C);
                Map<Integer, List<Long>> times = new LinkedHashMap<>();
                Map<Integer, List<Long>> exits = new LinkedHashMap<>(); // start to troika run's exit
                for (int run = 1; run <= runs; run++) {
                    for (int n : sizes) {
                        List<String> hosts = all.subList(0, n);
                        List<String> a = new ArrayList<>(List.of("-np", Integer.toString(n), "-H",
                                RelayRunTest.hostList(hosts), "--remote-shell", remoteShell));
                        if (flat) {
                            a.addAll(List.of("--mpi-args", mpi == Launcher.OPEN_MPI_5
                                    ? "--prtemca plm_ssh_no_tree_spawn true --prtemca plm_ssh_num_concurrent "
                                            + (concurrent != null ? concurrent : n)
                                    : "--mca plm_rsh_no_tree_spawn true --mca plm_rsh_num_concurrent "
                                            + (concurrent != null ? concurrent : n)));
                        }
                        if (System.getenv("BENCH_TIMELINE") != null) {
                            a.addAll(List.of("--timeline", System.getenv("BENCH_TIMELINE") + "-" + mpi.name() + "-" + n
                                    + "-" + run + ".json"));
                        }
                        if (System.getenv("BENCH_PROGRAM") != null) {
                            a.addAll(List.of(System.getenv("BENCH_PROGRAM").split(" ")));
                        } else {
                            a.add(hello.toString());
                        }
                        String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
                        long[] cpu0 = machineCpu();
                        Path pacct = accounting ? work.resolve("pacct-" + mpi.name() + "-" + n + "-" + run) : null;
                        if (pacct != null) {
                            accton(pacct);
                        }
                        long t0 = System.nanoTime();
                        RunSupport.Result r;
                        AgentSampler.Seen seen;
                        long exitMs;
                        try (AgentSampler agents = new AgentSampler(hosts, 100);
                                RunSupport s = RunSupport.start(mpi, work, Map.of(), a.toArray(String[]::new))) {
                            try {
                                r = s.waitFor();
                            } catch (AssertionError hang) {
                                System.out.println("HANG: " + hang.getMessage().lines().findFirst().orElse(""));
                                r = new RunSupport.Result(-1, "", hang.getMessage());
                                s.close(); // its processes, by this run's marker
                            }
                            // troika run's own time, start to exit (what follows is the bench's check for leftovers)
                            exitMs = (System.nanoTime() - t0) / 1_000_000;
                            try {
                                s.assertNoSurvivors();
                            } catch (AssertionError survivors) {
                                System.out.println("SURVIVORS: " + survivors.getMessage());
                                r = new RunSupport.Result(r.exitCode() == 0 ? -2 : r.exitCode(), r.out(), r.err());
                            }
                            seen = agents.seen();
                        }
                        long ms = (System.nanoTime() - t0) / 1_000_000;
                        long[] cpu1 = machineCpu();
                        if (pacct != null) {
                            accton(null);
                        }
                        double busy = (cpu1[0] - cpu0[0]) / (double) TICKS;
                        double avail = (cpu1[1] - cpu0[1]) / (double) TICKS;
                        int left = 0;
                        for (NetnsCluster.Host h : c.hosts()) {
                            left += c.leftovers(h, java.time.Duration.ofSeconds(30)).size();
                        }
                        clean &= left == 0 && r.exitCode() == 0;
                        long ranks = r.outLines().stream().filter(l -> l.contains("rank ")).count();
                        times.computeIfAbsent(n, k -> new ArrayList<>()).add(ms);
                        exits.computeIfAbsent(n, k -> new ArrayList<>()).add(exitMs);
                        System.out.printf("%s %s%s hosts=%d run=%d: %d ms (exited at %d ms), exit %d, ranks %d/%d, %s; left on hosts: %d;"
                                + " load %s; machine CPU busy %.1f s of %.1f s (%.0f %%)%n", mpi.name(),
                                flat ? "flat" : "tree", privatePids ? " private-pids" : "", n, run, ms, exitMs, r.exitCode(),
                                ranks, n, seen, left, load, busy, avail, 100 * busy / avail);
                        if (pacct != null) {
                            System.out.println("  CPU of the processes that ended during it (BSD process accounting): "
                                    + cpuByKind(pacct));
                        }
                        if (r.exitCode() != 0) {
                            System.out.println(r);
                        }
                    }
                }
                long small = median(times.get(sizes[0]));
                long smallExit = median(exits.get(sizes[0]));
                for (int n : sizes) {
                    long m = median(times.get(n));
                    long e = median(exits.get(n));
                    System.out.printf("%s %s: T(%d) median %d ms = %.2f x T(%d) (linear: %.1f); to troika run's exit"
                            + " %d ms = %.2f x%n", mpi.name(), flat ? "flat" : "tree", n, m, (double) m / small,
                            sizes[0], (double) n / sizes[0], e, (double) e / smallExit);
                }
            }
        } finally {
            c.close();
        }
        System.out.println(clean ? "every launch exited 0 and left nothing on any host" : "SOME LAUNCH FAILED OR LEFT "
                + "SOMETHING (see above)");
        System.exit(clean ? 0 : 1);
    }

    private static long median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        s.sort(null);
        return s.get(s.size() / 2);
    }

    /** USER_HZ of /proc/stat (100 on Linux for every architecture troika runs on). */
    private static final int TICKS = 100;

    /** The machine's busy and total CPU ticks so far (/proc/stat's first line: busy = all but idle and iowait). */
    private static long[] machineCpu() throws java.io.IOException {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long all = 0;
        for (int i = 1; i <= 8 && i < f.length; i++) {
            all += Long.parseLong(f[i]);
        }
        return new long[] {all - Long.parseLong(f[4]) - Long.parseLong(f[5]), all};
    }

    /** Turns BSD process accounting on into {@code file} (a new file), or off ({@code null}). */
    private static void accton(Path file) throws Exception {
        if (file != null) {
            Files.deleteIfExists(file);
            Files.createFile(file);
        }
        Process p = new ProcessBuilder(file == null ? List.of("accton", "off") : List.of("accton", file.toString()))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("accton failed (BENCH_ACCT=1 needs root and Debian's acct package)");
        }
    }

    /**
     * The CPU (user + system) of the processes {@code pacct} recorded, by kind: a JVM is named by its parent (launcher:
     * started by this JVM; agent: by mpirun or a daemon; task service: the others, started by a host's shell), the MPI's
     * processes by command, the rest together.
     */
    static String cpuByKind(Path pacct) throws Exception {
        Process p = new ProcessBuilder("dump-acct", pacct.toString()).redirectErrorStream(true).start();
        List<String> lines = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                .lines().toList();
        p.waitFor();
        Map<Long, String> comm = new java.util.HashMap<>();
        Map<Long, Long> parent = new java.util.HashMap<>();
        Map<Long, Double> cpu = new java.util.HashMap<>();
        for (String line : lines) {
            String[] f = line.split("\\|");
            if (f.length < 11) {
                continue;
            }
            long pid = Long.parseLong(f[9].trim());
            comm.put(pid, f[0].trim());
            parent.put(pid, Long.parseLong(f[10].trim()));
            cpu.put(pid, (Double.parseDouble(f[2].trim()) + Double.parseDouble(f[3].trim())) / 100.0);
        }
        long self = ProcessHandle.current().pid();
        Map<String, double[]> kinds = new java.util.TreeMap<>();
        for (Map.Entry<Long, String> e : comm.entrySet()) {
            String kind = e.getValue();
            if (kind.equals("java")) {
                // a parent still running at the end is not in the file: this JVM (the launcher's), a host's shell
                String by = parent.get(e.getKey()) == self ? "bench" : comm.getOrDefault(parent.get(e.getKey()), "");
                kind = by.equals("bench") ? "launcher"
                        : by.equals("mpirun") || by.equals("orted") || by.equals("prted") ? "agent" : "task service";
            } else if (!List.of("orted", "prted", "hello", "mpirun", "prterun").contains(kind)) {
                kind = "other";
            }
            double[] k = kinds.computeIfAbsent(kind, x -> new double[2]);
            k[0]++;
            k[1] += cpu.get(e.getKey());
        }
        double total = kinds.values().stream().mapToDouble(k -> k[1]).sum();
        StringBuilder out = new StringBuilder(String.format("%.1f s in all;", total));
        kinds.forEach((k, v) -> out.append(String.format(" %s %d x %.3f s = %.1f s;", k, (int) v[0], v[1] / v[0],
                v[1])));
        return out.toString();
    }
}
