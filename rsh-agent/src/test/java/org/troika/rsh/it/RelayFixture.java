package org.troika.rsh.it;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.troika.common.TroikaEnv;
import org.troika.rsh.driver.DriverService;
import org.troika.wire.Secret;
import org.troika.testkit.NetnsCluster;

/**
 * A driver in this JVM (bound to the bridge address) and one task-service process per network namespace, started the
 * way {@code troika run} does it: {@code ip netns exec NS troika-rsh task-service --host ADDR --secret-stdin}, the secret
 * written to its stdin. Hosts are named by their data address.
 */
final class RelayFixture implements AutoCloseable {
    final NetnsCluster cluster;
    final Secret secret = Secret.generate();
    final DriverService driver;
    final BlockingQueue<String> lost = new LinkedBlockingQueue<>();
    final Path agent;
    final Path secretFile;
    private final List<Process> services = new ArrayList<>();

    RelayFixture(NetnsCluster cluster, Path tmp) throws Exception {
        this.cluster = cluster;
        List<String> hosts = cluster.hosts().stream().map(NetnsCluster.Host::address).toList();
        driver = new DriverService(secret, InetAddress.getByName(cluster.bridgeAddress()), hosts, Duration.ofMillis(500),
                Duration.ofSeconds(5), (h, why) -> lost.add(h + ": " + why));
        agent = agentScript(tmp);
        secretFile = secret.writeToPrivateFile(tmp);
        try {
            for (NetnsCluster.Host h : cluster.hosts()) {
                List<String> argv = new ArrayList<>(cluster.execPrefix(h));
                argv.addAll(List.of(agent.toString(), "task-service", "--host", h.address(), "--driver",
                        driver.endpoint().toString(), "--secret-stdin", "--heartbeat-ms", "500", "--liveness-ms", "5000"));
                ProcessBuilder pb = new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.INHERIT)
                        .redirectError(ProcessBuilder.Redirect.INHERIT);
                pb.environment().remove(TroikaEnv.SECRET_KEY);
                pb.environment().put("TMPDIR", tmp.toString()); // a killed host's secret file stays in the test folder
                Process p = pb.start();
                services.add(p);
                OutputStream in = p.getOutputStream();
                in.write((secret.encode() + "\n").getBytes(StandardCharsets.US_ASCII));
                in.flush();
            }
            driver.awaitHosts(Duration.ofSeconds(120));
            driver.separateSharedHostnames();
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /**
     * What the test shares with its fake hosts (each has its own /tmp): its folder (the agent script, the programs)
     * and the class path entries under /tmp (a checkout there, as in some CI).
     */
    static List<Path> shared(Path tmp) {
        List<Path> out = new ArrayList<>(List.of(tmp));
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (e.startsWith("/tmp/")) {
                out.add(Path.of(e));
            }
        }
        return out;
    }

    /** mpirun's environment: the driver address and the secret file, never the secret. */
    Map<String, String> mpirunEnv() {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.remove(TroikaEnv.SECRET_KEY);
        env.put(TroikaEnv.SECRET_FILE, secretFile.toString());
        env.put(TroikaEnv.DRIVER_ADDR, driver.endpoint().toString());
        env.put(TroikaEnv.LIVENESS_TIMEOUT_MS, "5000");
        return env;
    }

    List<String> hostWords() {
        return cluster.hosts().stream().map(NetnsCluster.Host::address).toList();
    }

    /** A launcher script for this JVM's class path, like bin/troika-rsh (no ':' or space in its path). */
    static Path agentScript(Path dir) throws IOException {
        Path p = dir.resolve("troika-rsh");
        String cp = System.getProperty("java.class.path");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Files.writeString(p, "#!/bin/sh\nexec '" + java + "' -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -cp '"
                + cp + "' org.troika.rsh.agent.RshMain \"$@\"\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Override
    public void close() {
        driver.close();
        for (Process p : services) {
            try {
                if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
