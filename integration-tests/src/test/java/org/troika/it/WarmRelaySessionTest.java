package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.LAUNCH_AGENT;
import static org.troika.launcher.options.RunOptionTable.REMOTE_SHELL;
import static org.troika.launcher.options.RunOptionTable.START_TIMEOUT;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.TroikaEnv;
import org.troika.launcher.relay.RelaySession;
import org.troika.launcher.relay.RemoteShell;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.timeline.Timeline;
import org.troika.rsh.driver.HostsNotReadyException;
import org.troika.testkit.Dist;

/**
 * A warm relay session (issue 14), with the packaged {@code bin/troika-rsh} as task service: the hosts are loopback
 * addresses (127.0.0.2-4, not this machine's names, so "remote"), and the remote shell is a template that logs each
 * service start and runs it here. What an elastic job's generations rely on: one service per host across launches,
 * services of added hosts started in the background, those of removed hosts stopped, a fresh agent key file per launch
 * (the previous one gone), and a host whose remote shell fails named at once instead of after the start timeout.
 */
@Tag("integration")
class WarmRelaySessionTest {
    private static final MpiInstall OMPI4 = new MpiInstall(MpiFlavor.OPEN_MPI, 4, "");
    private static final String A = "127.0.0.2";
    private static final String B = "127.0.0.3";
    private static final String BROKEN = "127.0.0.4";

    @TempDir
    Path tmp;

    private RunSettings settings(Path log) {
        // each start is logged; BROKEN's remote shell fails at once (exit 7), like ssh to a host without troika
        String shell = "sh -c 'echo {host} >> " + log + "; [ {host} = " + BROKEN + " ] && exit 7; exec \"$@\"' sh";
        return RunSettings.of(List.of("true")).with(REMOTE_SHELL, shell)
                .with(LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY)
                .with(START_TIMEOUT, java.time.Duration.ofSeconds(60));
    }

    private static HostPlan plan(String... hosts) {
        return HostPlan.assign("test", java.util.Arrays.stream(hosts).map(h -> new HostSlots(h, 1)).toList(),
                hosts.length);
    }

    private static List<String> starts(Path log) throws java.io.IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Test
    void servicesOutliveLaunchesFollowTheHostsAndEachLaunchHasItsOwnAgentKey() throws Exception {
        Path home = Dist.home();
        Path log = tmp.resolve("starts.log");
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        Map<String, String> env = Map.of("TMPDIR", tmp.toString(), "PATH", System.getenv("PATH"));
        Timeline timeline = Timeline.inMemory();
        RunSettings s = settings(log);
        RelaySession.Request request = new RelaySession.Request(s, OMPI4, new RemoteShell(s, null, env), env, home, err,
                false, timeline);
        try (RelaySession relay = RelaySession.open(request, List.of(A), true)) {
            relay.retain(List.of(A, B)); // B is a spare: started in the background
            RelaySession.Launch first = relay.launch(plan(A), s);
            assertTrue(first.active());
            Path firstKey = Path.of(first.agent().env().get(TroikaEnv.SECRET_FILE));
            assertTrue(Files.exists(firstKey));
            assertEquals(List.of(A, B), relay.serviceHosts());

            // the next launch adds B: its service, started before, is not started again; A's neither
            Path secondKey = Path.of(relay.launch(plan(A, B), s).agent().env().get(TroikaEnv.SECRET_FILE));
            assertNotEquals(firstKey, secondKey);
            assertFalse(Files.exists(firstKey), "the first launch's agent key file outlived it");
            assertTrue(Files.exists(secondKey));
            assertEquals(List.of(A, B), starts(log).stream().sorted().toList(), "a service was started twice: "
                    + starts(log));
            long serviceSpans = timeline.events().stream().filter(e -> e.kind() == Timeline.Kind.SERVICE).count();
            assertEquals(2, serviceSpans, timeline.events().toString());

            // B leaves: its service stops (its remote shell ends) without a loss being reported
            relay.retain(List.of(A));
            assertEquals(List.of(A), relay.serviceHosts());
            relay.launch(plan(A), s);
            assertTrue(relay.lostHosts().isEmpty(), relay.lostHosts().toString());

            // a host whose remote shell fails is named at once (well before the 60 s start timeout); the session
            // stays usable without it
            long before = System.nanoTime();
            HostsNotReadyException e = assertThrows(HostsNotReadyException.class, () -> relay.launch(plan(A, BROKEN), s));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
            assertEquals(List.of(BROKEN), e.missing());
            assertTrue(e.getMessage().contains(BROKEN + " (exit 7)"), e.getMessage());
            assertTrue(tookMs < 30_000, "waited " + tookMs + " ms for a remote shell that had ended");
            assertEquals(List.of(A), relay.serviceHosts());
            assertNotNull(relay.launch(plan(A), s).agent());
        }
        // closed: every service told to stop, no key file left in TMPDIR
        try (var left = Files.list(tmp)) {
            List<String> names = left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("troika-"))
                    .toList();
            assertEquals(List.of(), names, "files left: " + names + "\n" + errBytes);
        }
    }
    /**
     * Issue 23.5: a start that takes longer than 2 s says where it is on stderr (not a terminal here: a line, then
     * one every 10 s), counted from the pool's host states: the host up since the first launch, the one whose remote
     * shell takes 4 s named as the slowest.
     */
    @Test
    void aSlowStartSaysOnStderrWhichHostsAreUpAndWhichIsSlowest() throws Exception {
        Path home = Dist.home();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        Map<String, String> env = Map.of("TMPDIR", tmp.toString(), "PATH", System.getenv("PATH"));
        String shell = "sh -c '[ {host} = " + B + " ] && sleep 4; exec \"$@\"' sh";
        RunSettings s = RunSettings.of(List.of("true")).with(REMOTE_SHELL, shell)
                .with(LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY)
                .with(START_TIMEOUT, java.time.Duration.ofSeconds(60));
        RelaySession.Request request = new RelaySession.Request(s, OMPI4, new RemoteShell(s, null, env), env, home, err,
                false, Timeline.off());
        try (RelaySession relay = RelaySession.open(request, List.of(A, B), true)) {
            relay.launch(plan(A), s);
            relay.launch(plan(A, B), s);
        }
        String printed = errBytes.toString(StandardCharsets.UTF_8);
        assertTrue(Pattern.compile("(?m)^troika: starting \\(\\d+ s\\): hosts 1/2 registered, daemons 0/2 started, "
                + "slowest: " + Pattern.quote(B) + "$").matcher(printed).find(), printed);
    }
}
