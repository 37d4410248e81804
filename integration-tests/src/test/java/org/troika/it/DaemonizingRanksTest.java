package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.exec.ProcessTable;
import org.troika.testkit.NetnsCluster;
import org.troika.testkit.Requires;

/**
 * Ranks that start daemons outside their session ({@code setsid -f}, a double fork into a new session, one that also
 * ignores SIGTERM, a plain background child) leave nothing behind when troika gets SIGINT, SIGTERM or SIGKILL,
 * locally and through the relay on namespace hosts. Every trial counts the processes still carrying the run's marker
 * 30 s later at most; the test fails if any trial left one (and kills them by pid).
 *
 * <p>Trials per signal: {@code -Dtroika.it.daemon.trials=N} (default 2, i.e. 6 per mode; {@code
 * bench/daemonizing-ranks.sh} runs 7, i.e. 21 per mode).
 */
@Tag("integration")
class DaemonizingRanksTest {
    /** Four daemons per rank: the case that left 16 survivors per 4-rank job. */
    static final String RANK = "setsid -f sleep 601; ( ( exec setsid sleep 602 ) & ); "
            + "setsid -f sh -c 'trap \"\" TERM HUP INT; exec sleep 603'; ( sleep 604 & ); "
            + "echo \"ready $TROIKA_RANK\"; exec sleep 600";
    static final List<String> SIGNALS = List.of("INT", "TERM", "KILL");

    @TempDir
    Path tmp;

    static int trialsPerSignal() {
        return Integer.getInteger("troika.it.daemon.trials", 2);
    }

    @Test
    void daemonsOfLocalRanksEndWithTroikaUnderIntTermAndKill() throws Exception {
        Requires.command("setsid");
        List<String> report = trials("local", List.of("-np", "4", "-H", "localhost:4"), 4);
        assertEquals(List.of(), report, "trials with survivors");
    }

    @Test
    void daemonsOfRelayedRanksEndWithTroikaUnderIntTermAndKill() throws Exception {
        Requires.root();
        Requires.command("unshare");
        try (NetnsCluster c = NetnsCluster.create("dzr", 170, 2)) {
            List<String> hosts = c.hosts().stream().map(h -> h.address() + ":2").toList();
            List<String> report = trials("relay", List.of("-np", "4", "-H", String.join(",", hosts),
                    "--remote-shell", "ip netns exec {host}"), 4);
            assertEquals(List.of(), report, "trials with survivors");
        }
    }

    /** Runs the trials; returns one line per trial that left survivors. */
    private List<String> trials(String mode, List<String> runArgs, int np) throws Exception {
        List<String> bad = new ArrayList<>();
        int total = 0;
        int survivors = 0;
        for (int t = 0; t < trialsPerSignal(); t++) {
            for (String sig : SIGNALS) {
                Path dir = Files.createTempDirectory(tmp, mode + "-" + sig + "-");
                List<String> args = new ArrayList<>(runArgs);
                args.addAll(List.of("sh", "-c", RANK));
                try (RunSupport run = RunSupport.start(dir, Map.of(), args.toArray(String[]::new))) {
                    run.awaitOut(o -> o.lines().filter(l -> l.contains("ready ")).count() == np, np + " ranks ready");
                    // every rank's four daemons are up before the signal
                    long deadline = System.nanoTime() + 60_000_000_000L;
                    while (ProcessTable.withEnv(RunSupport.MARKER, run.marker).stream()
                            .filter(h -> h.info().command().orElse("").endsWith("sleep")).count() < 5L * np
                            && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                    }
                    run.signal(sig);
                    run.waitFor();
                    int left = countSurvivors(run);
                    total++;
                    survivors += left;
                    if (left > 0) {
                        bad.add(mode + " SIG" + sig + " trial " + t + ": " + left + " survivors");
                    }
                }
            }
        }
        System.out.println("daemonizing ranks, " + mode + ": " + total + " trials, " + survivors + " survivors in "
                + bad.size() + " trials");
        return bad;
    }

    /** Survivors 30 s after troika ended (the guard's grace is 5 s), killed by pid. */
    private static int countSurvivors(RunSupport run) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        List<ProcessHandle> left = ProcessTable.withEnv(RunSupport.MARKER, run.marker);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            left = ProcessTable.withEnv(RunSupport.MARKER, run.marker);
        }
        left.forEach(ProcessHandle::destroyForcibly);
        return left.size();
    }
}
