package org.troika.launcher.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.troika.launcher.options.RunOptionTable.REMOTE_SHELL;
import static org.troika.launcher.options.RunOptionTable.SSH_IDENTITY_FILE;
import static org.troika.launcher.options.RunOptionTable.SSH_PORT;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.wire.Endpoint;

class RemoteShellCommandBuilderTest {
    private static final List<String> WORDS = RemoteShellCommandBuilder.serviceWords(Path.of("/opt/troika/bin/troika-rsh"),
            "node1", new Endpoint("10.0.0.1", 4000), null);

    private static RunSettings settings(String remoteShell, Integer port, Path identity) {
        return RunSettings.of(List.of("true")).with(REMOTE_SHELL, remoteShell).with(SSH_PORT, port)
                .with(SSH_IDENTITY_FILE, identity);
    }

    @Test
    void theServiceReadsTheSecretFromStdinNeverFromArgv() {
        assertEquals(List.of("/opt/troika/bin/troika-rsh", "task-service", "--host", "node1", "--driver", "10.0.0.1:4000",
                "--secret-stdin"), WORDS);
    }

    @Test
    void withTheRelayAgentTheServiceGetsTheAgentKeyLabelWhichIsNotASecret() {
        assertEquals(List.of("/opt/troika/bin/troika-rsh", "task-service", "--host", "node1", "--driver",
                "10.0.0.1:4000",
                "--secret-stdin", "--agent-label", "00112233445566778899aabbccddeeff"),
                RemoteShellCommandBuilder.serviceWords(Path.of("/opt/troika/bin/troika-rsh"), "node1",
                        new Endpoint("10.0.0.1", 4000), "00112233445566778899aabbccddeeff"));
    }

    @Test
    void sshHonoursPortAndIdentityAndQuotesTheRemoteCommandOnce() {
        assertEquals(List.of("ssh", "-p", "2222", "-i", "/k/id", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o",
                "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3", "node1",
                "/opt/troika/bin/troika-rsh task-service --host node1 --driver 10.0.0.1:4000 --secret-stdin"),
                RemoteShellCommandBuilder.build(settings(null, 2222, Path.of("/k/id")), null, "node1", WORDS));
    }

    @Test
    void blaunchAndSrunTakeTheWordsAsArgv() {
        assertEquals("blaunch", RemoteShellCommandBuilder.build(settings("blaunch", null, null), null, "node1", WORDS).get(0));
        List<String> srun = RemoteShellCommandBuilder.build(settings("srun", null, null), null, "node1", WORDS);
        assertEquals(List.of("srun", "--nodes=1", "--ntasks=1", "--overlap", "--nodelist=node1"), srun.subList(0, 5));
        assertEquals(WORDS, srun.subList(5, srun.size()));
    }

    /**
     * Issue 23: inside Slurm one step starts every host's service (one srun on the launch node, not one per host), each
     * naming its host by Slurm's node name; the other shells start one host at a time.
     */
    @Test
    void srunStartsManyHostsServicesInOneStepTheOtherShellsOneByOne() {
        List<String> words = RemoteShellCommandBuilder.stepServiceWords(Path.of("/opt/troika/bin/troika-rsh"),
                Endpoint.parse("10.0.0.1:4000", "driver"), "ab12");
        assertEquals(List.of("/opt/troika/bin/troika-rsh", "task-service", "--host-from-env", "SLURMD_NODENAME",
                "--driver", "10.0.0.1:4000", "--secret-stdin", "--agent-label", "ab12"), words);
        assertEquals(List.of("srun", "--nodes=3", "--ntasks=3", "--ntasks-per-node=1", "--overlap",
                "--kill-on-bad-exit=0", "--input=all", "--nodelist=n2,n3,n4", "x"),
                RemoteShellCommandBuilder.buildTogether(settings(null, null, null), "srun", 3, "n2,n3,n4", List.of("x")));
        assertEquals("srun", RemoteShellCommandBuilder.buildTogether(settings("srun", null, null), null, 2, "a,b",
                List.of("x")).get(0));
        for (String shell : new String[] {null, "ssh", "blaunch", "ip netns exec {host}"}) {
            assertEquals(null, RemoteShellCommandBuilder.buildTogether(settings(shell, null, null), null, 2, "a,b",
                    List.of("x")), shell);
        }
        // --remote-shell wins over the allocation's srun
        assertEquals(null, RemoteShellCommandBuilder.buildTogether(settings("ssh", null, null), "srun", 2, "a,b",
                List.of("x")));
    }

    @Test
    void aTemplateGetsTheHostSubstituted() {
        List<String> argv = RemoteShellCommandBuilder.build(settings("ip netns exec ns-{host}", null, null), null, "n2", WORDS);
        assertEquals(List.of("ip", "netns", "exec", "ns-n2"), argv.subList(0, 4));
        assertEquals(WORDS, argv.subList(4, argv.size()));
    }

    @Test
    void aTemplateWithoutPlaceholderIsAUsageError() {
        assertThrows(UsageException.class,
                () -> RemoteShellCommandBuilder.build(settings("rsh", null, null), null, "n2", WORDS));
    }

    @Test
    void aQuotedTemplateIsSplitLikeAShellCommandLine() {
        // before issue 10 this split on whitespace: the quoted script broke into words and sh failed with
        // "Unterminated quoted string"
        List<String> argv = RemoteShellCommandBuilder.build(settings(
                "sh -c 'exec ip netns exec \"$0\" \"$@\"' ns-{host}", null, null), null, "n2", WORDS);
        assertEquals(List.of("sh", "-c", "exec ip netns exec \"$0\" \"$@\"", "ns-n2"), argv.subList(0, 4));
        assertEquals(WORDS, argv.subList(4, argv.size()));
        UsageException e = assertThrows(UsageException.class,
                () -> RemoteShellCommandBuilder.build(settings("sh -c 'x {host}", null, null), null, "n2", WORDS));
        assertEquals(true, e.getMessage().contains("close the quote"), e.getMessage());
    }

    @Test
    void insideAnAllocationItsLauncherStartsTheServicesUnlessRemoteShellSaysOtherwise() {
        List<String> srun = RemoteShellCommandBuilder.build(settings(null, null, null), "srun", "n2", WORDS);
        assertEquals(List.of("srun", "--nodes=1", "--ntasks=1", "--overlap", "--nodelist=n2"), srun.subList(0, 5));
        List<String> blaunch = RemoteShellCommandBuilder.build(settings(null, null, null), "blaunch", "n2", WORDS);
        assertEquals(List.of("blaunch", "n2"), blaunch.subList(0, 2));
        assertEquals("ssh", RemoteShellCommandBuilder.build(settings(null, null, null), null, "n2", WORDS).get(0));
        assertEquals(List.of("ip", "netns", "exec", "n2"), RemoteShellCommandBuilder.build(
                settings("ip netns exec {host}", null, null), "srun", "n2", WORDS).subList(0, 4));
    }

    @Test
    void theCleanupAtAnElasticJobsEndIsTheInstallationsTroikaRsh() {
        assertEquals(List.of("/opt/troika/bin/troika-rsh", "cleanup", "--job", "e1-ab"),
                RemoteShellCommandBuilder.cleanupWords(Path.of("/opt/troika/bin/troika-rsh"), "e1-ab"));
    }
}
