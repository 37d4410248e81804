package org.troika.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.NetnsCluster;

/**
 * Issue 25's end-to-end elastic benchmark ({@code bench/elastic-inplace.sh}, not a test): {@code troika run} with
 * ElasticTraining (a commit every step) on namespace hosts through the relay, one case at a time, each timed from the
 * event to the first commit line of the new world as troika's output delivers it, and divided by F, the fastest bare
 * {@code mpirun -np N java -version} on the same MPI in the same run (sampled before every job):
 * <ul>
 *   <li>{@code leave}: N ranks on K hosts (K = min(N, 4), N/K slots each); the discovery file drops the last host;
 *       to the first commit at the smaller size (on Open MPI 5 + ULFM: in place);</li>
 *   <li>{@code relaunch}: the same with {@code --fault-tolerance relaunch} (what an MPI that cannot change its world
 *       in place does);</li>
 *   <li>{@code add}: N ranks on K hosts, the discovery file adds a host with N/K slots; to the first commit at the
 *       larger size (in place where growth is offered, else a relaunch);</li>
 *   <li>{@code standby}: the same, but the discovery file lists that host with 0 slots from the start (a standby
 *       host: its task service is started and registered before the change, which gives it N/K slots; the job runs
 *       2 s longer before the change, so that the service is up);</li>
 *   <li>{@code standby-rank}: the same as {@code standby} with {@code --standby-ranks N/K} (the launch starts N/K
 *       ranks on the standby host, which wait outside the world; the change activates them, no process starts);</li>
 *   <li>{@code more}: N ranks on K hosts, the discovery file gives the last of them N/K more slots; to the first
 *       commit at the larger size (in place: the new ranks are spawned beside the running ones, under the daemon
 *       already there);</li>
 *   <li>{@code kill}: launch rank N-1 gets SIGKILL; to the first commit at a smaller size (ULFM shrink on Open MPI
 *       5).</li>
 * </ul>
 * Each line also says whether the change was made in place or by a relaunch, and where the time went: from the
 * event to the stderr lines troika prints on the way (discovery saw it; the change in place was sent; the next
 * generation started; the dead rank was reported), then to the first commit. Prints one line per job and a median
 * per case and size.
 *
 * <p>{@code java -cp <integration-tests test class path> org.troika.it.ElasticE2eBench CASES SIZES RUNS WORKDIR
 * [SUBNET] [MPI]}: CASES comma-separated, SIZES comma-separated, MPI {@code OPEN_MPI_5} (default) or
 * {@code OPEN_MPI}.
 */
public final class ElasticE2eBench {
    /** ElasticTraining's pause per step: a commit every step, so the first commit follows within a step. */
    static final int STEP_MS = 20;
    private static final long TIMEOUT_S = 120;

    private ElasticE2eBench() {}

    /** One measured job. */
    record Sample(long ms, double f, boolean inPlace, int size, Map<String, Long> phases) {}

    public static void main(String[] args) throws Exception {
        List<String> cases = List.of(args[0].split(","));
        List<Integer> sizes = java.util.Arrays.stream(args[1].split(",")).map(Integer::parseInt).toList();
        int runs = Integer.parseInt(args[2]);
        Path work = Files.createDirectories(Path.of(args[3]));
        int subnet = args.length > 4 ? Integer.parseInt(args[4]) : 219;
        Launcher mpi = args.length > 5 ? Launcher.valueOf(args[5]) : Launcher.OPEN_MPI_5;
        mpi.require();
        System.out.printf("elastic in-place benchmark: %s, cases %s, sizes %s, %d run(s) each, a commit every %d ms"
                + " step; F = fastest bare mpirun -np N java -version in this run; load %s%n", mpi, cases, sizes,
                runs, STEP_MS, load());
        List<String> summary = new ArrayList<>();
        try (NetnsCluster c = NetnsCluster.create("bee", subnet, 5)) {
            List<String> h = ElasticRunTest.addresses(c);
            int job = 0;
            if (!"0".equals(System.getenv("BENCH_CDS_PRIME"))) {
                job = primeClassData(mpi, c, h, work);
            }
            for (int n : sizes) {
                List<Long> f = new ArrayList<>();
                f.addAll(javaVersion(mpi, n, 3));
                for (String kase : cases) {
                    List<Sample> samples = new ArrayList<>();
                    for (int r = 1; r <= runs; r++) {
                        f.addAll(javaVersion(mpi, n, 1));
                        long fast = f.stream().min(Long::compare).orElseThrow();
                        ElasticRunTest e = new ElasticRunTest();
                        e.tmp = Files.createDirectories(work.resolve("job-" + (++job)));
                        String before = load();
                        Sample s = measure(kase, mpi, c, h, n, e, fast);
                        samples.add(s);
                        System.out.printf("  %s N=%d run %d: %d ms = %.1f F (F %d ms), %s, size %d -> %d; %s;"
                                + " load %s -> %s%n", kase, n, r, s.ms(), s.f(), fast, s.inPlace() ? "in place"
                                        : "relaunch", n, s.size(), phases(s.phases()), before, load());
                    }
                    long fast = f.stream().min(Long::compare).orElseThrow();
                    List<Long> ms = samples.stream().map(Sample::ms).sorted().toList();
                    long med = ms.get(ms.size() / 2);
                    String line = String.format(Locale.ROOT, "%s N=%d: median %d ms = %.1f F (F %d ms; runs %s; %s)",
                            kase, n, med, (double) med / fast, fast, ms, samples.stream().allMatch(Sample::inPlace)
                                    ? "in place" : samples.stream().noneMatch(Sample::inPlace) ? "relaunch" : "mixed");
                    System.out.println(line);
                    summary.add(line);
                }
            }
        }
        System.out.println("summary (load " + load() + "):");
        summary.forEach(l -> System.out.println("  " + l));
        System.exit(0);
    }

    /**
     * Gives every host the ranks' class-data archive before anything is measured, as a host has it from the second
     * job of a command on: troika-rankenv records a host's archive at a rank's normal exit and the next rank there
     * promotes it. The measured jobs never get there by themselves (their ranks are torn down at the end, and a
     * relaunch's old ranks are killed by PRRTE while they write the archive), so without this the numbers mixed
     * ranks with and without it, and old ranks spending ~1 s of CPU on a write that is then thrown away. Two short
     * jobs on all hosts whose ranks end normally: the first records, the second promotes. BENCH_CDS_PRIME=0 skips it.
     *
     * @return the number of jobs run (their folders are job-1, job-2)
     */
    private static int primeClassData(Launcher mpi, NetnsCluster c, List<String> h, Path work) throws Exception {
        String[] all = h.stream().map(x -> x + ":1").toArray(String[]::new);
        for (int i = 1; i <= 2; i++) {
            ElasticRunTest e = new ElasticRunTest();
            e.tmp = Files.createDirectories(work.resolve("job-" + i));
            try (RunSupport run = e.start(mpi, c, e.hostsFile(all), 3, STEP_MS, List.of("--commit-every", "1"),
                    "--min-np", Integer.toString(all.length))) {
                RunSupport.Result r = run.waitFor();
                if (r.exitCode() != 0) {
                    throw new IllegalStateException("the class-data priming job failed: " + r);
                }
            }
        }
        System.out.println("  (every host's class-data archive recorded by two short jobs first; BENCH_CDS_PRIME=0"
                + " skips that)");
        return 2;
    }

    /** One job of {@code kase} at {@code n} ranks. */
    private static Sample measure(String kase, Launcher mpi, NetnsCluster c, List<String> h, int n, ElasticRunTest e,
            long f) throws Exception {
        int k = Math.min(n, 4);
        int s = n / k;
        List<String> start = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            start.add(h.get(i) + ":" + s);
        }
        List<String> listed = new ArrayList<>(start);
        boolean standby = kase.equals("standby") || kase.equals("standby-rank");
        if (standby) {
            listed.add(h.get(k) + ":0");
        }
        Path hosts = e.hostsFile(listed.toArray(String[]::new));
        List<String> flags = new ArrayList<>(List.of("--min-np", "1", "--max-np", Integer.toString(n + s)));
        if ("1".equals(System.getenv("BENCH_VERBOSE"))) {
            flags.add("--verbose");
        }
        String interval = System.getenv("BENCH_DISCOVERY_INTERVAL");
        if (interval != null && !interval.isBlank()) {
            flags.addAll(List.of("--discovery-interval", interval));
        }
        String extra = System.getenv("BENCH_TROIKA_FLAGS"); // e.g. --mpi-args=--prtemca odls_base_sigkill_timeout 0
        if (extra != null && !extra.isBlank()) {
            flags.addAll(List.of(extra.trim().split("\\s+(?=--)")));
        }
        if (kase.equals("standby-rank")) {
            flags.addAll(List.of("--standby-ranks", Integer.toString(s)));
        }
        if (kase.equals("relaunch") && mpi == Launcher.OPEN_MPI_5) {
            flags.addAll(List.of("--fault-tolerance", "relaunch"));
        }
        try (RunSupport run = e.start(mpi, c, hosts, 1_000_000, STEP_MS, List.of("--commit-every", "1"),
                flags.toArray(String[]::new))) {
            run.awaitOut(o -> countSize(o, n) >= 5, "5 commits at size " + n);
            if (standby) {
                Thread.sleep(2_000); // the standby host's service starts with the first generation's; let it register
            }
            ProcessHandle victim = kase.equals("kill") ? ElasticRunTest.findRank(run, n - 1, 1) : null;
            int from = run.lines(0).size();
            long t0 = System.nanoTime();
            IntPredicate target;
            switch (kase) {
                case "leave", "relaunch" -> {
                    ElasticRunTest.write(hosts, start.subList(0, k - 1).toArray(String[]::new));
                    target = size -> size < n;
                }
                case "leave-first" -> {
                    ElasticRunTest.write(hosts, start.subList(1, k).toArray(String[]::new));
                    target = size -> size < n;
                }
                case "add", "standby", "standby-rank" -> {
                    List<String> more = new ArrayList<>(start);
                    more.add(h.get(k) + ":" + s);
                    ElasticRunTest.write(hosts, more.toArray(String[]::new));
                    target = size -> size > n;
                }
                case "more" -> {
                    List<String> more = new ArrayList<>(start);
                    more.set(k - 1, h.get(k - 1) + ":" + (2 * s));
                    ElasticRunTest.write(hosts, more.toArray(String[]::new));
                    target = size -> size > n;
                }
                case "kill" -> {
                    victim.destroyForcibly();
                    target = size -> size < n;
                }
                default -> throw new IllegalArgumentException("unknown case " + kase
                        + " (leave, leave-first, relaunch, add, standby, standby-rank, more or kill)");
            }
            Map<String, Predicate<RunSupport.Line>> wanted = new LinkedHashMap<>();
            wanted.put("discovery saw it", l -> l.err() && l.text().startsWith("troika elastic: hosts "));
            wanted.put("change in place sent", l -> l.err() && l.text().contains(" changes in place: "));
            wanted.put("rank died line", l -> l.err() && l.text().contains(" died; "));
            wanted.put("next generation started", l -> l.err()
                    && l.text().contains("troika elastic: generation 2 ("));
            wanted.put("rank left", l -> l.text().contains("troika elastic: rank ") && l.text().contains(" leaves"));
            Map<String, Long> phases = new LinkedHashMap<>();
            boolean verbose = "1".equals(System.getenv("BENCH_VERBOSE"));
            Births births = verbose ? Births.watch(t0) : null;
            // also with BENCH_RANK_JAVA_OPTS: the ranks' own logs (-Xlog with timemillis) line up with it
            if (verbose || System.getenv("BENCH_RANK_JAVA_OPTS") != null) {
                System.out.println("    event at epoch ms " + (System.currentTimeMillis() - (System.nanoTime() - t0) / 1_000_000));
            }
            long listAt = Long.MAX_VALUE;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (System.nanoTime() < deadline) {
                for (RunSupport.Line l : run.lines(from)) {
                    from++;
                    for (var w : List.copyOf(wanted.entrySet())) {
                        if (w.getValue().test(l)) {
                            phases.put(w.getKey(), (l.at() - t0) / 1_000_000);
                            wanted.remove(w.getKey());
                        }
                    }
                    Matcher m = ElasticRunTest.COMMITTED.matcher(l.text());
                    if (!l.err() && m.find() && target.test(Integer.parseInt(m.group(2)))) {
                        long ms = (l.at() - t0) / 1_000_000;
                        boolean inPlace = !run.err().contains("troika elastic: generation 2 (");
                        keep(run, e.tmp);
                        if (births != null) {
                            System.out.println("    processes started after the event: " + births.finish());
                            System.out.println("    machine CPU busy from the event to the commit: " + births.busy());
                            System.out.println("    CPU by process: " + births.cpuByName());
                        }
                        return new Sample(ms, (double) ms / f, inPlace, Integer.parseInt(m.group(2)), phases);
                    }
                }
                if (verbose && listAt == Long.MAX_VALUE && phases.containsKey("rank left")) {
                    listAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                }
                if (System.nanoTime() > listAt) { // what still runs 2 s after the ranks left (BENCH_VERBOSE=1)
                    listAt = Long.MAX_VALUE - 1;
                    for (ProcessHandle p : org.troika.common.exec.ProcessTable.withEnv(RunSupport.MARKER, run.marker)) {
                        String cmd = p.info().commandLine().orElse("?");
                        System.out.println("    still running 2 s after the ranks left: " + p.pid() + " "
                                + cmd.substring(0, Math.min(160, cmd.length())));
                    }
                }
                if (!run.alive()) {
                    break;
                }
                Thread.sleep(2);
            }
            keep(run, e.tmp);
            throw new AssertionError(kase + " N=" + n + ": no commit of the new world within " + TIMEOUT_S
                    + " s\n--- stdout\n" + tail(run.out()) + "--- stderr\n" + tail(run.err()));
        }
    }

    /**
     * BENCH_VERBOSE=1: where a relaunch's or a growth's time and CPU go. Which processes start after the event and
     * when (ms from it, first seen by a 10 ms poll of the machine's process table: prte, prted, the task services'
     * spawn helpers, the ranks' troika-rankenv shells, named by what they run when first seen), how busy the machine's
     * cores were from the event to the commit (/proc/stat), and the CPU each kind of process used in that time
     * (utime+stime from /proc/PID/stat every 50 ms, so a process shorter than that is missed; a shell that became a
     * JVM counts as the JVM). The poll itself costs this JVM ~0.4 core: it slows what it measures.
     */
    static final class Births extends Thread {
        private final long t0;
        private final java.util.Set<Long> seen = new java.util.HashSet<>();
        private final List<String> born = java.util.Collections.synchronizedList(new ArrayList<>());
        private volatile boolean done;

        private Births(long t0) {
            super("births");
            this.t0 = t0;
            setDaemon(true);
            ProcessHandle.allProcesses().forEach(p -> {
                seen.add(p.pid());
                account(p, true);
            });
        }

        private final long[] cpu0 = cpu();

        /** user+nice+system+irq+softirq and all jiffies of /proc/stat's first line. */
        private static long[] cpu() {
            try {
                String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                long busy = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                        + Long.parseLong(f[7]);
                long all = 0;
                for (int i = 1; i < f.length; i++) {
                    all += Long.parseLong(f[i]);
                }
                return new long[] {busy, all};
            } catch (java.io.IOException e) {
                return new long[] {0, 1};
            }
        }

        String busy() {
            long[] c = cpu();
            long busy = c[0] - cpu0[0];
            long all = c[1] - cpu0[1];
            return String.format(Locale.ROOT, "%.0f %% of %d cores (%d jiffies busy of %d)", 100.0 * busy / all,
                    Runtime.getRuntime().availableProcessors(), busy, all);
        }

        static Births watch(long t0) {
            Births b = new Births(t0);
            b.start();
            return b;
        }

        /** Short helpers not listed among the births (their CPU still counts). */
        private static final java.util.Set<String> QUIET = java.util.Set.of("sleep", "cat", "sed", "ls", "cksum",
                "tr", "uname", "mawk", "awk", "readlink", "dirname", "grep", "hostname", "ldconfig", "od", "mkdir");
        private final Map<Long, long[]> ticks = new java.util.concurrent.ConcurrentHashMap<>();
        private final java.util.Set<Long> ended = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final Map<Long, String> names = new java.util.concurrent.ConcurrentHashMap<>();

        /** utime+stime of a process in jiffies, or -1. */
        private static long ticksOf(long pid) {
            try {
                String[] f = org.troika.common.exec.ProcessTable.statFields(Long.toString(pid));
                return Long.parseLong(f[11]) + Long.parseLong(f[12]);
            } catch (Exception e) {
                return -1;
            }
        }

        private void account(ProcessHandle p, boolean atStart) {
            long t = ticksOf(p.pid());
            if (t < 0) {
                return;
            }
            long[] v = ticks.computeIfAbsent(p.pid(), k -> new long[] {atStart ? t : 0, t});
            v[1] = t;
            String known = names.get(p.pid());
            if (known == null || !known.startsWith("java")) { // a shell that became a JVM (exec) is named by the JVM
                String n = name(p);
                names.put(p.pid(), n == null ? "other" : n);
            }
        }

        /** CPU ms from the event on, per process name, largest first. */
        String cpuByName() {
            Map<String, Long> by = new java.util.TreeMap<>();
            Map<String, Integer> count = new java.util.TreeMap<>();
            ticks.forEach((pid, v) -> {
                String n = names.getOrDefault(pid, "other").replaceAll(" r[0-9]+$", "");
                by.merge(n, (v[1] - v[0]) * 10, Long::sum);
                if (v[1] > v[0]) {
                    count.merge(n, 1, Integer::sum);
                }
            });
            StringBuilder sb = new StringBuilder();
            by.entrySet().stream().filter(e -> e.getValue() > 0).sorted((a, b) -> Long.compare(b.getValue(),
                    a.getValue())).forEach(e -> sb.append(sb.isEmpty() ? "" : ", ").append(e.getKey()).append(' ')
                            .append(e.getValue()).append(" ms (").append(count.get(e.getKey())).append(')'));
            return sb.toString();
        }

        @Override
        public void run() {
            int round = 0;
            while (!done) {
                long now = (System.nanoTime() - t0) / 1_000_000;
                boolean sample = round++ % 5 == 0;
                ProcessHandle.allProcesses().forEach(p -> {
                    if (seen.add(p.pid())) {
                        String name = name(p);
                        if (name != null && !QUIET.contains(name)) {
                            born.add("+" + now + " " + name + "[" + p.pid() + "]");
                        }
                        account(p, false);
                    } else if (sample) {
                        account(p, false);
                    }
                });
                if (sample) { // the ends of the launch's own processes (prte, prted, ranks, agents), when next seen gone
                    for (var e : names.entrySet()) {
                        String n = e.getValue();
                        if ((n.startsWith("prte") || n.startsWith("java ElasticTraining") || n.startsWith("java RshMain")
                                || n.startsWith("troika-rsh-agent") || n.startsWith("mpirun") || n.startsWith("orte"))
                                && ended.add(e.getKey())
                                && !org.troika.common.exec.ProcessTable.running(e.getKey())) {
                            born.add("+" + now + " END " + n + "[" + e.getKey() + "]");
                        } else if (org.troika.common.exec.ProcessTable.running(e.getKey())) {
                            ended.remove(e.getKey());
                        }
                    }
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private static String name(ProcessHandle p) {
            String cmd = p.info().command().orElse("");
            String base = cmd.substring(cmd.lastIndexOf('/') + 1);
            if (base.equals("java")) {
                String[] args = p.info().arguments().orElse(new String[0]);
                for (String a : args) {
                    if (a.matches("[a-z]+(\\.[a-zA-Z0-9_$]+)+") && !a.contains("/")
                            && Character.isUpperCase(a.charAt(a.lastIndexOf('.') + 1))) {
                        return "java " + a.substring(a.lastIndexOf('.') + 1) + rank(p.pid());
                    }
                }
                return "java";
            }
            return base.isEmpty() ? null : base;
        }

        /** " rN" for a process with OMPI_COMM_WORLD_RANK=N in its environment, else "". */
        private static String rank(long pid) {
            try {
                for (String kv : Files.readString(Path.of("/proc/" + pid + "/environ"),
                        java.nio.charset.StandardCharsets.ISO_8859_1).split("\0")) {
                    if (kv.startsWith("OMPI_COMM_WORLD_RANK=")) {
                        return " r" + kv.substring("OMPI_COMM_WORLD_RANK=".length());
                    }
                }
            } catch (java.io.IOException e) {
                // gone
            }
            return "";
        }

        String finish() throws InterruptedException {
            done = true;
            join(1000);
            synchronized (born) {
                return born.isEmpty() ? "none seen" : String.join(", ", born);
            }
        }
    }

    private static String phases(Map<String, Long> p) {
        StringBuilder sb = new StringBuilder();
        p.entrySet().stream().sorted(Map.Entry.comparingByValue()).forEach(e -> sb.append(sb.isEmpty() ? "" : ", ")
                .append(e.getKey()).append(" +").append(e.getValue()));
        return sb.isEmpty() ? "no intermediate line" : sb.toString();
    }

    private static int countSize(String out, int size) {
        int count = 0;
        Matcher m = ElasticRunTest.COMMITTED.matcher(out);
        while (m.find()) {
            if (Integer.parseInt(m.group(2)) == size) {
                count++;
            }
        }
        return count;
    }

    /**
     * Wall ms of {@code count} bare {@code mpirun -np N java -version} on this machine (F candidates), each timed
     * where it runs (inside the Open MPI 5 root: entering the root is not part of F).
     */
    static List<Long> javaVersion(Launcher mpi, int n, int count) throws Exception {
        String one = mpi.command() + " --bind-to none --host localhost:" + n + " -np " + n
                + " java -Xshare:auto -version >/dev/null 2>&1 || exit 1";
        String loop = "for i in $(seq " + count + "); do t0=$(date +%s%N); " + one
                + "; echo $(( ($(date +%s%N) - t0) / 1000000 )); done";
        List<String> argv = mpi.wrap(List.of("/bin/sh", "-c", loop));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD);
        mpi.applyEnvironment(pb.environment());
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("bench: " + one + " failed");
        }
        return out.lines().map(Long::parseLong).toList();
    }

    /** The job's output so far, in its folder (kept with BENCH_KEEP=1). */
    private static void keep(RunSupport run, Path dir) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        long first = run.lines(0).isEmpty() ? 0 : run.lines(0).get(0).at();
        for (RunSupport.Line l : run.lines(0)) {
            sb.append((l.at() - first) / 1_000_000).append(l.err() ? " E " : " O ").append(l.text()).append('\n');
        }
        Files.writeString(dir.resolve("output.txt"), sb.toString());
    }

    private static String load() {
        try {
            String[] l = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return l[0] + " " + l[1] + " " + l[2];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private static String tail(String s) {
        return s.length() > 6000 ? "..." + s.substring(s.length() - 6000) : s;
    }
}
