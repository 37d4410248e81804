package org.troika.launcher.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.wire.Endpoint;

class TaskServiceCommandBuilderTest {
    private static final List<String> WORDS = TaskServiceCommandBuilder.serviceWords(Path.of("/opt/troika/bin/troika-rsh"),
            "node1", new Endpoint("10.0.0.1", 4000));

    private static RunSettings settings(String remoteShell, Integer port, Path identity) {
        return RunSettings.builder().remoteShell(remoteShell).sshPort(port).sshIdentityFile(identity)
                .command(List.of("true")).build();
    }

    @Test
    void theServiceReadsTheSecretFromStdinNeverFromArgv() {
        assertEquals(List.of("/opt/troika/bin/troika-rsh", "task-service", "--host", "node1", "--driver", "10.0.0.1:4000",
                "--secret-stdin"), WORDS);
    }

    @Test
    void withTheRelayAgentTheServiceGetsTheAgentKeyLabelWhichIsNotASecret() {
        assertEquals(List.of("/opt/troika/bin/troika-rsh", "task-service", "--host", "node1", "--driver", "10.0.0.1:4000",
                "--secret-stdin", "--agent-label", "00112233445566778899aabbccddeeff"),
                TaskServiceCommandBuilder.serviceWords(Path.of("/opt/troika/bin/troika-rsh"), "node1",
                        new Endpoint("10.0.0.1", 4000), "00112233445566778899aabbccddeeff"));
    }

    @Test
    void sshHonoursPortAndIdentityAndQuotesTheRemoteCommandOnce() {
        assertEquals(List.of("ssh", "-p", "2222", "-i", "/k/id", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o",
                "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3", "node1",
                "/opt/troika/bin/troika-rsh task-service --host node1 --driver 10.0.0.1:4000 --secret-stdin"),
                TaskServiceCommandBuilder.build(settings(null, 2222, Path.of("/k/id")), "node1", WORDS));
    }

    @Test
    void blaunchAndSrunTakeTheWordsAsArgv() {
        assertEquals("blaunch", TaskServiceCommandBuilder.build(settings("blaunch", null, null), "node1", WORDS).get(0));
        List<String> srun = TaskServiceCommandBuilder.build(settings("srun", null, null), "node1", WORDS);
        assertEquals(List.of("srun", "--nodes=1", "--ntasks=1", "--overlap", "--nodelist=node1"), srun.subList(0, 5));
        assertEquals(WORDS, srun.subList(5, srun.size()));
    }

    @Test
    void aTemplateGetsTheHostSubstituted() {
        List<String> argv = TaskServiceCommandBuilder.build(settings("ip netns exec ns-{host}", null, null), "n2", WORDS);
        assertEquals(List.of("ip", "netns", "exec", "ns-n2"), argv.subList(0, 4));
        assertEquals(WORDS, argv.subList(4, argv.size()));
    }

    @Test
    void aTemplateWithoutPlaceholderIsAUsageError() {
        assertThrows(UsageException.class,
                () -> TaskServiceCommandBuilder.build(settings("rsh", null, null), "n2", WORDS));
    }

    @Test
    void aQuotedTemplateIsSplitLikeAShellCommandLine() {
        // before issue 10 this split on whitespace: the quoted script broke into words and sh failed with
        // "Unterminated quoted string"
        List<String> argv = TaskServiceCommandBuilder.build(settings(
                "sh -c 'exec ip netns exec \"$0\" \"$@\"' ns-{host}", null, null), "n2", WORDS);
        assertEquals(List.of("sh", "-c", "exec ip netns exec \"$0\" \"$@\"", "ns-n2"), argv.subList(0, 4));
        assertEquals(WORDS, argv.subList(4, argv.size()));
        UsageException e = assertThrows(UsageException.class,
                () -> TaskServiceCommandBuilder.build(settings("sh -c 'x {host}", null, null), "n2", WORDS));
        assertEquals(true, e.getMessage().contains("close the quote"), e.getMessage());
    }

    @Test
    void insideAnAllocationItsLauncherStartsTheServicesUnlessRemoteShellSaysOtherwise() {
        List<String> srun = TaskServiceCommandBuilder.build(settings(null, null, null), "srun", "n2", WORDS);
        assertEquals(List.of("srun", "--nodes=1", "--ntasks=1", "--overlap", "--nodelist=n2"), srun.subList(0, 5));
        List<String> blaunch = TaskServiceCommandBuilder.build(settings(null, null, null), "blaunch", "n2", WORDS);
        assertEquals(List.of("blaunch", "n2"), blaunch.subList(0, 2));
        assertEquals("ssh", TaskServiceCommandBuilder.build(settings(null, null, null), null, "n2", WORDS).get(0));
        assertEquals(List.of("ip", "netns", "exec", "n2"), TaskServiceCommandBuilder.build(
                settings("ip netns exec {host}", null, null), "srun", "n2", WORDS).subList(0, 4));
    }

    @Test
    void theCleanupAtAnElasticJobsEndIsTheInstallationsTroikaRsh() {
        assertEquals(List.of("/opt/troika/bin/troika-rsh", "cleanup", "--job", "e1-ab"),
                TaskServiceCommandBuilder.cleanupWords(Path.of("/opt/troika/bin/troika-rsh"), "e1-ab"));
    }
}
