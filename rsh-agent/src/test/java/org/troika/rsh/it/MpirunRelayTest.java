package org.troika.rsh.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.TroikaEnv;
import org.troika.rsh.driver.DriverService;
import org.troika.rsh.task.TaskService;
import org.troika.wire.Secret;
import org.troika.testkit.Requires;

/**
 * Real {@code mpirun} with troika-rsh as {@code plm_rsh_agent}: three fake hosts ({@code 127.0.0.2-4}, IP literals so no
 * DNS) whose task services run in this JVM. The task services notice they share the kernel hostname and run each
 * daemon in a private UTS namespace named after its host (no help from the test), so {@code hostname} shows three hosts.
 *
 * <p>These hosts deliberately share files with the launcher (issue 10 moved every other multi-host test onto
 * {@code NetnsCluster} hosts that share nothing): this test is about the driver's own detection of a shared kernel
 * hostname and the in-JVM task services, which only exist on one machine; no rank here reads anything a real host
 * would have to receive.
 */
@Tag("integration")
class MpirunRelayTest {
    private static final List<String> HOSTS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

    @TempDir Path tmp;

    @Test
    void mpirunStartsItsDaemonsThroughTheRelayWithAndWithoutTreeSpawn() throws Exception {
        Path mpirun = Requires.command("mpirun");
        Requires.command("unshare");
        Requires.root();
        Secret secret = Secret.generate();
        try (DriverService driver = new DriverService(secret, InetAddress.getLoopbackAddress(), HOSTS,
                Duration.ofMillis(500), Duration.ofSeconds(10), (h, r) -> { })) {
            List<TaskService> tasks = new ArrayList<>();
            try {
                for (String h : HOSTS) {
                    tasks.add(new TaskService(new TaskService.Config(h, List.of(driver.endpoint()), secret,
                            Duration.ofMillis(500), Duration.ofSeconds(10), System.getenv(), tmp)).start());
                }
                driver.awaitHosts(Duration.ofSeconds(60));
                assertTrue(driver.separateSharedHostnames(), "fake hosts share the kernel hostname");
                Path secretFile = secret.writeToPrivateFile(tmp);
                Path agent = agentScript();
                for (List<String> extra : List.of(List.<String>of(), List.of("-mca", "plm_rsh_no_tree_spawn", "true"),
                        List.of("-mca", "routed_radix", "1"))) {
                    // --tag-output: each rank's lines are tagged (untagged, three env dumps interleave beyond recognition)
                    List<String> argv = new ArrayList<>(List.of(mpirun.toString(), "--allow-run-as-root", "--bind-to",
                            "none", "--tag-output", "-np", "3", "-H", String.join(",", HOSTS), "-mca", "plm_rsh_agent",
                            agent.toString()));
                    argv.addAll(extra);
                    argv.addAll(List.of("sh", "-c", "hostname; env"));
                    Map<String, String> env = new HashMap<>(System.getenv());
                    env.remove(TroikaEnv.SECRET_KEY);
                    env.put(TroikaEnv.SECRET_FILE, secretFile.toString());
                    env.put(TroikaEnv.DRIVER_ADDR, driver.endpoint().toString());
                    Result r = run(argv, env);
                    assertEquals(0, r.code, extra + ": " + r.output);
                    TreeSet<String> names = new TreeSet<>();
                    // a rank's tagged hostname line, wherever the two output streams of the test's reader spliced it
                    java.util.regex.Matcher hm = java.util.regex.Pattern.compile(
                            "<stdout>:(127\\.0\\.0\\.\\d+)(?=\\[\\d+,\\d+\\]<|$)", java.util.regex.Pattern.MULTILINE)
                            .matcher(r.output);
                    while (hm.find()) {
                        if (HOSTS.contains(hm.group(1))) {
                            names.add(hm.group(1));
                        }
                    }
                    assertEquals(new TreeSet<>(HOSTS), names, extra + ": " + r.output);
                    assertFalse(r.output.contains(secret.encode()), "the secret reached a rank's environment");
                }
            } finally {
                tasks.forEach(TaskService::close);
            }
        }
    }

    private Path agentScript() throws IOException {
        Path p = tmp.resolve("troika-rsh");
        String cp = System.getProperty("java.class.path");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Files.writeString(p, "#!/bin/sh\nexec '" + java + "' -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp '" + cp
                + "' org.troika.rsh.agent.RshMain \"$@\"\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    private record Result(int code, String output) {}

    private static Result run(List<String> argv, Map<String, String> env) throws Exception {
        try (Mpirun m = new Mpirun(argv, env)) {
            Integer code = m.waitFor(180);
            assertTrue(code != null, "mpirun did not finish: " + m.output());
            return new Result(code, m.output());
        }
    }
}
