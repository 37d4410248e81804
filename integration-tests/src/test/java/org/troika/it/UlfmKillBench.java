package org.troika.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.common.exec.ProcessTable;
import org.troika.testkit.MpiJob.Launcher;
import org.troika.testkit.NetnsCluster;

/**
 * Issue 21's ULFM missed-failure case, as a benchmark ({@code bench/ulfm-detect.sh}, not a test): RUNS times, a 4-rank
 * {@code --fault-tolerance shrink} ElasticTraining job (Open MPI 5.0.7) on three namespace hosts through the relay
 * (slots 2, 1, 1), rank 3 SIGKILLed at step {@value #KILL_AT}. Per run: whether the survivors recovered in place (a
 * commit at size 3 within {@value #RECOVERY_S} s of the kill), the detection latency (the kill to the launcher's
 * "rank 3 ... died" line, which it prints when the survivors' shrink report arrives) and the recovery latency (to
 * the first commit at size 3). A run that does not recover gets thread dumps of its survivors (SIGQUIT, into the
 * output) and native stacks (gdb) written to the work folder, and is then torn down. Prints one line per run and the
 * counts.
 *
 * <p>{@code java -cp <integration-tests test class path> org.troika.it.UlfmKillBench RUNS WORKDIR [SUBNET]}
 */
public final class UlfmKillBench {
    static final int KILL_AT = 50;
    static final int RECOVERY_S = 60;
    private static final Pattern DIED = Pattern.compile("generation 1: rank 3 on host \\S+ died");

    private UlfmKillBench() {}

    public static void main(String[] args) throws Exception {
        int runs = Integer.parseInt(args[0]);
        Path work = Files.createDirectories(Path.of(args[1]));
        int subnet = args.length > 2 ? Integer.parseInt(args[2]) : 217;
        int stepMs = args.length > 3 ? Integer.parseInt(args[3]) : 60;
        boolean verbose = args.length > 4 && args[4].equals("verbose");
        Launcher.OPEN_MPI_5.require();
        int recovered = 0;
        List<Long> detect = new ArrayList<>();
        List<Long> recover = new ArrayList<>();
        List<Long> hostSaw = new ArrayList<>();
        try (NetnsCluster c = NetnsCluster.create("ulfk", subnet, 3)) {
            List<String> h = ElasticRunTest.addresses(c);
            for (int i = 1; i <= runs; i++) {
                Path tmp = Files.createDirectories(work.resolve("run-" + i));
                ElasticRunTest e = new ElasticRunTest();
                e.tmp = tmp;
                Path hosts = e.hostsFile(h.get(0) + ":2", h.get(1) + ":1", h.get(2) + ":1");
                String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
                List<String> flags = new ArrayList<>(List.of("--fault-tolerance", "shrink", "--min-np", "2"));
                if (verbose) {
                    flags.add("--verbose");
                }
                try (RunSupport run = e.start(Launcher.OPEN_MPI_5, c, hosts, 150, stepMs, List.of(),
                        flags.toArray(String[]::new))) {
                    run.awaitOut(o -> o.contains("committed step=" + KILL_AT + " "), "step " + KILL_AT);
                    ElasticRunTest.killRank(run, 3, 1);
                    long t0 = System.nanoTime();
                    long died = -1;
                    long seen = -1;
                    long size3 = -1;
                    long deadline = t0 + TimeUnit.SECONDS.toNanos(RECOVERY_S);
                    while (System.nanoTime() < deadline && size3 < 0) {
                        long now = System.nanoTime();
                        if (died < 0 && DIED.matcher(run.err()).find()) {
                            died = (now - t0) / 1_000_000;
                        }
                        if (seen < 0 && run.err().contains("the process of rank 3 on host")) {
                            seen = (now - t0) / 1_000_000;
                        }
                        if (run.out().contains("size=3")) {
                            size3 = (now - t0) / 1_000_000;
                        }
                        Thread.sleep(10);
                    }
                    if (seen >= 0) {
                        hostSaw.add(seen);
                    }
                    if (size3 >= 0) {
                        recovered++;
                        recover.add(size3);
                        if (died >= 0) {
                            detect.add(died);
                        }
                    } else {
                        diagnose(run, tmp);
                    }
                    boolean relaunched = run.err().contains("generation 2 (failure)");
                    System.out.printf("run %d: %s, task service saw it %s ms, died line %s ms, size-3 commit %s ms"
                            + " (load %s)%n", i, size3 >= 0 ? "recovered in place" : relaunched
                                    ? "NOT recovered in place; the launcher ended the generation (relaunch)"
                                    : "NOT recovered within " + RECOVERY_S + " s",
                            seen >= 0 ? Long.toString(seen) : "-", died >= 0 ? Long.toString(died) : "-",
                            size3 >= 0 ? Long.toString(size3) : "-", load);
                    if (size3 < 0) {
                        System.out.println("  diagnostics in " + tmp);
                    }
                }
            }
        }
        detect.sort(null);
        recover.sort(null);
        hostSaw.sort(null);
        System.out.printf("recovered in place %d of %d; kill -> launcher's died line: median %s ms %s; kill -> size-3"
                + " commit: median %s ms %s; kill -> task service report (verbose): median %s ms %s%n", recovered,
                runs, median(detect), detect, median(recover), recover, median(hostSaw), hostSaw);
        System.exit(0);
    }

    private static String median(List<Long> l) {
        return l.isEmpty() ? "-" : Long.toString(l.get(l.size() / 2));
    }

    /** Thread dumps and native stacks of every process of the run still alive, then the run's output. */
    private static void diagnose(RunSupport run, Path tmp) throws IOException, InterruptedException {
        StringBuilder sb = new StringBuilder();
        for (ProcessHandle p : ProcessTable.withEnv(RunSupport.MARKER, run.marker)) {
            String cmd = p.info().commandLine().orElse("?");
            sb.append("=== ").append(p.pid()).append(' ').append(cmd).append('\n');
            sb.append(environ(p.pid())).append('\n');
            boolean rank = cmd.contains("ElasticTraining") && environ(p.pid()).contains("OMPI_COMM_WORLD_RANK=");
            if (rank) { // gdb takes seconds per process on a loaded machine: the ranks only
                Process g = new ProcessBuilder("gdb", "-p", Long.toString(p.pid()), "-batch", "-ex",
                        "set sysroot /proc/" + p.pid() + "/root", "-ex", "thread apply all bt 30")
                        .redirectErrorStream(true).start();
                byte[] bt = g.getInputStream().readAllBytes();
                g.waitFor(120, TimeUnit.SECONDS);
                sb.append(new String(bt, java.nio.charset.StandardCharsets.UTF_8)).append('\n');
            }
            if (rank) {
                new ProcessBuilder("kill", "-QUIT", Long.toString(p.pid())).start().waitFor();
            }
        }
        Thread.sleep(3000); // the thread dumps travel through mpirun to troika's output
        Files.writeString(tmp.resolve("stacks.txt"), sb.toString());
        Files.writeString(tmp.resolve("out.txt"), run.out());
        Files.writeString(tmp.resolve("err.txt"), run.err());
    }

    private static String environ(long pid) {
        try {
            String env = new String(Files.readAllBytes(Path.of("/proc/" + pid + "/environ")),
                    java.nio.charset.StandardCharsets.UTF_8);
            StringBuilder sb = new StringBuilder();
            Matcher m = Pattern.compile("(OMPI_COMM_WORLD_RANK|TROIKA_ELASTIC_GENERATION|PMIX_RANK)=[^\\x00]*")
                    .matcher(env);
            while (m.find()) {
                sb.append(m.group()).append(' ');
            }
            return sb.toString();
        } catch (IOException gone) {
            return "(gone)";
        }
    }
}
