package org.troika.rsh.driver;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.troika.wire.Secret;

/**
 * A driver service in a process of its own, so a test can stop it ({@code SIGSTOP}) as a user stops troika: reads the
 * job secret from stdin's first line, prints {@code ADDR=host:port}, then {@code lost HOST: reason} for each loss,
 * until stdin ends. Arguments: heartbeat ms, liveness ms, expected hosts.
 */
public final class DriverChildMain {
    private DriverChildMain() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        Secret secret = Secret.decode(in.readLine());
        List<String> hosts = Arrays.asList(args).subList(2, args.length);
        try (DriverService d = new DriverService(secret, InetAddress.getLoopbackAddress(), hosts,
                Duration.ofMillis(Long.parseLong(args[0])), Duration.ofMillis(Long.parseLong(args[1])),
                (h, why) -> {
                    System.out.println("lost " + h + ": " + why);
                    System.out.flush();
                })) {
            System.out.println("ADDR=" + d.endpoint());
            System.out.flush();
            while (in.read() >= 0) {
                // until stdin ends
            }
        }
    }
}
