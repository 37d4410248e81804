package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.launcher.options.RunOptionTable.REMOTE_SHELL;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.troika.launcher.spi.RunSettings;

/**
 * Starting a command on many hosts with one process ({@link RemoteShell#startTogether}), against a stand-in
 * {@code srun} on the PATH that records its arguments, the host list it was given and its stdin.
 */
@Timeout(60)
class RemoteShellTest {
    @TempDir
    Path tmp;

    /** A fake srun: argv one per line to args.txt, the --nodelist file (when it names one) to hosts.txt, stdin. */
    private Map<String, String> fakeSrun() throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path srun = bin.resolve("srun");
        Files.writeString(srun, """
                #!/bin/sh
                out=$(dirname "$0")/..
                : > "$out/args.txt"
                for a in "$@"; do
                  printf '%s\\n' "$a" >> "$out/args.txt"
                  case "$a" in --nodelist=/*) cp "${a#--nodelist=}" "$out/hosts.txt" ;; esac
                done
                cat > "$out/stdin.txt"
                """);
        Files.setPosixFilePermissions(srun, PosixFilePermissions.fromString("rwx------"));
        return Map.of("PATH", bin + ":/usr/bin:/bin");
    }

    private List<String> runTogether(RemoteShell shell, List<String> hosts, Path stdin) throws Exception {
        RemoteShell.Together t = shell.startTogether(hosts, List.of("troika-rsh", "task-service"), l -> { }, l -> { },
                stdin, tmp);
        assertEquals(0, t.process().waitFor(Duration.ofSeconds(30)));
        t.process().close();
        List<String> args = Files.readAllLines(tmp.resolve("args.txt"));
        assertEquals(t.argv().subList(1, t.argv().size()), args);
        return args;
    }

    @Test
    void aShortHostListGoesOnTheCommandLineAndEveryTaskGetsTheSameStdin() throws Exception {
        RemoteShell shell = new RemoteShell(RunSettings.of(List.of("true")), "srun", fakeSrun());
        assertTrue(shell.startsTogether());
        Path stdin = Files.writeString(tmp.resolve("secret"), "line\n");
        List<String> args = runTogether(shell, List.of("n2", "n3", "n4"), stdin);
        assertEquals(List.of("--nodes=3", "--ntasks=3", "--ntasks-per-node=1", "--overlap", "--kill-on-bad-exit=0",
                "--input=all", "--nodelist=n2,n3,n4", "troika-rsh", "task-service"), args);
        assertEquals("line\n", Files.readString(tmp.resolve("stdin.txt")));
    }

    /**
     * 10,000 host names do not fit in one argument (Linux takes at most 128 KiB): the list goes to srun as a file
     * (srun reads a --nodelist value with a '/' as one), which the caller deletes once the services run.
     */
    @Test
    void tenThousandHostsGoToSrunAsAFileOfHostNames() throws Exception {
        RemoteShell shell = new RemoteShell(RunSettings.of(List.of("true")), "srun", fakeSrun());
        List<String> hosts = IntStream.rangeClosed(1, 10_000).mapToObj(i -> String.format("compute-node-%05d", i))
                .toList();
        RemoteShell.Together t = shell.startTogether(hosts, List.of("w"), l -> { }, l -> { }, null, tmp);
        assertEquals(0, t.process().waitFor(Duration.ofSeconds(30)));
        t.process().close();
        List<String> args = Files.readAllLines(tmp.resolve("args.txt"));
        assertEquals("--nodes=10000", args.get(0));
        assertEquals("--nodelist=" + t.hostFile(), args.get(6));
        assertEquals(hosts, Files.readAllLines(tmp.resolve("hosts.txt"), StandardCharsets.UTF_8));
        assertTrue(Files.exists(t.hostFile()), "deleted before srun read it");
    }

    @Test
    void sshBlaunchAndTemplatesStartOneHostAtATime() throws Exception {
        for (String name : new String[] {"ssh", "blaunch", "ip netns exec {host}"}) {
            RemoteShell shell = new RemoteShell(RunSettings.of(List.of("true")).with(REMOTE_SHELL, name), "srun",
                    fakeSrun());
            assertTrue(!shell.startsTogether(), name);
            assertNull(shell.startTogether(new ArrayList<>(List.of("a", "b")), List.of("w"), l -> { }, l -> { }, null,
                    tmp), name);
        }
        assertTrue(!Files.exists(tmp.resolve("args.txt")), "srun ran");
    }

    /**
     * Services started over ssh or a template leave their shell once registered; srun's and blaunch's are kept (the
     * batch system would end what a finished task left behind).
     */
    @Test
    void servicesDetachFromSshAndTemplatesNotFromTheBatchSystemsLaunchers() {
        for (String name : new String[] {"ssh", "ip netns exec {host}"}) {
            assertTrue(new RemoteShell(RunSettings.of(List.of("true")).with(REMOTE_SHELL, name), null, Map.of())
                    .detaches(), name);
        }
        assertTrue(new RemoteShell(RunSettings.of(List.of("true")), null, Map.of()).detaches(), "ssh by default");
        for (String allocation : new String[] {"srun", "blaunch"}) {
            assertTrue(!new RemoteShell(RunSettings.of(List.of("true")), allocation, Map.of()).detaches(), allocation);
        }
        assertEquals(List.of("/t/troika-rsh", "task-service", "--host", "n2", "--driver", "10.0.0.1:4000",
                "--secret-stdin", "--detach", "--agent-label", "ab"), RemoteShellCommandBuilder.serviceWords(
                        Path.of("/t/troika-rsh"), "n2", new org.troika.wire.Endpoint("10.0.0.1", 4000), "ab", true));
    }
}
