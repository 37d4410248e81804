package org.troika.rsh.driver;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.troika.common.TroikaEnv;
import org.troika.rsh.task.TaskService;
import org.troika.wire.Secret;

/**
 * A driver and one task service per named fake host, all in this JVM on loopback: for benchmarks ({@code bench/agent.sh})
 * and for trying the agent by hand. Prints {@code TROIKA_DRIVER_ADDR=...} and {@code TROIKA_SECRET_FILE=...} lines for a
 * shell to source, then runs until stdin ends.
 *
 * <pre>java -cp troika-rsh.jar:troika-wire.jar:troika-common.jar org.troika.rsh.driver.LocalRelayMain h1 h2 h3</pre>
 */
public final class LocalRelayMain {
    private LocalRelayMain() {}

    public static void main(String[] args) throws Exception {
        List<String> hosts = Arrays.asList(args);
        Secret secret = Secret.generate();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path secretFile = secret.writeToPrivateFile(tmp);
        List<TaskService> tasks = new ArrayList<>();
        try (DriverService driver = new DriverService(secret, InetAddress.getLoopbackAddress(), hosts,
                Duration.ofSeconds(1), Duration.ofSeconds(30), (h, why) -> System.err.println("lost " + h + ": " + why))) {
            for (String h : hosts) {
                tasks.add(new TaskService(new TaskService.Config(h, List.of(driver.endpoint()), secret,
                        Duration.ofSeconds(1), Duration.ofSeconds(30), System.getenv(), tmp)).start());
            }
            driver.awaitHosts(Duration.ofSeconds(60));
            System.out.println(TroikaEnv.DRIVER_ADDR + "=" + driver.endpoint());
            System.out.println(TroikaEnv.SECRET_FILE + "=" + secretFile);
            System.out.flush();
            while (System.in.read() >= 0) {
                // run until stdin ends
            }
        } finally {
            tasks.forEach(TaskService::close);
            try {
                java.nio.file.Files.deleteIfExists(secretFile);
                java.nio.file.Files.deleteIfExists(secretFile.getParent());
            } catch (IOException ignored) {
                // best effort
            }
        }
    }
}
