package org.troika.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.RelayMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * Runs as an MPI rank (started by {@link RankSecretTest}) and tries, as a hostile rank of the same user would, to get
 * a key that drives troika's services: from its environment, the files its environment names, every {@code troika-*}
 * directory under {@code $TMPDIR} and {@code /tmp}, and for every ancestor process (its daemon, the task service, the
 * launcher where the kernel is shared) that process's environment, command line, the files those name and every
 * regular file it holds open ({@code /proc/PID/fd}). Every base64 string of 16+ bytes found is a candidate key, tried
 * against every driver address found and every TCP port a Java process listens on in this network namespace: Ping
 * (answered only under the job secret), Lookup of every host (answered under a live agent key) and an Exec that
 * would create {@code MARKER_DIR/pwned-RANK}.
 *
 * <p>Prints {@code probe rank=R candidates=N sources=M breaches=[...]}; an empty list is a pass.
 */
public final class SecretProbe {
    private static final Pattern B64 = Pattern.compile("[A-Za-z0-9+/]{22,}={0,2}");

    private SecretProbe() {}

    public static void main(String[] args) throws Exception {
        Path markerDir = Path.of(args[0]);
        List<String> hosts = List.of(args[1].split(","));
        String rank = System.getenv().getOrDefault("OMPI_COMM_WORLD_RANK", "?");
        Set<String> texts = new LinkedHashSet<>();
        Set<String> sources = new LinkedHashSet<>();
        Set<String> driverAddrs = new LinkedHashSet<>();
        collectEnv(System.getenv(), texts, sources, driverAddrs, "env");
        for (String dir : new String[] {System.getenv("TMPDIR"), "/tmp"}) {
            if (dir != null) {
                scanTroikaDirs(Path.of(dir), texts, sources);
            }
        }
        long pid = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(1L);
        while (pid > 1) {
            Path proc = Path.of("/proc", Long.toString(pid));
            Map<String, String> env = readEnviron(proc.resolve("environ"));
            collectEnv(env, texts, sources, driverAddrs, "environ of " + pid);
            readSmall(proc.resolve("cmdline")).ifPresent(c -> texts.add(c.replace('\0', ' ')));
            try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
                for (Path fd : fds) {
                    if (Files.isRegularFile(fd)) {
                        readSmall(fd).filter(t -> t.indexOf('\0') < 0).ifPresent(t -> { // text, not a jar or library
                            texts.add(t);
                            sources.add("fd " + fd);
                        });
                    }
                }
            } catch (IOException | SecurityException e) {
                // not readable
            }
            pid = ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(1L);
        }
        List<Secret> candidates = new ArrayList<>();
        for (String t : texts) {
            Matcher m = B64.matcher(t);
            while (m.find()) {
                try {
                    byte[] b = Base64.getDecoder().decode(m.group());
                    if (b.length >= Secret.MIN_BYTES && b.length <= 64 && candidates.stream().noneMatch(c -> c.equals(Secret.of(b)))) {
                        candidates.add(Secret.of(b));
                    }
                } catch (IllegalArgumentException e) {
                    // not base64
                }
            }
        }
        List<Endpoint> targets = new ArrayList<>();
        for (String d : driverAddrs) {
            try {
                targets.addAll(Endpoint.parseList(d, "driver"));
            } catch (RuntimeException e) {
                // not an address list
            }
        }
        for (Endpoint e : JavaListeners.inThisNamespace(System.getenv(RunSupport.MARKER))) {
            if (!targets.contains(e)) {
                targets.add(e);
            }
        }
        List<String> breaches = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            Secret k = candidates.get(i);
            for (Endpoint e : targets) {
                Object pong = ask(e, k, new RelayMessage.Ping("probe"));
                if (pong instanceof RelayMessage.Pong) {
                    breaches.add("candidate " + i + " is the job secret at " + e);
                }
                for (String h : hosts) {
                    if (ask(e, k, new RelayMessage.Lookup(h)) instanceof RelayMessage.LookupReply r && !r.endpoints().isEmpty()) {
                        breaches.add("candidate " + i + " looks up " + h + " at " + e);
                    }
                }
                Path marker = markerDir.resolve("pwned-" + rank);
                if (ask(e, k, new RelayMessage.Exec(System.nanoTime(), "touch " + marker)) instanceof RelayMessage.Exited) {
                    breaches.add("candidate " + i + " ran a command at " + e);
                }
            }
        }
        List<String> plumbing = System.getenv().keySet().stream().filter(k -> k.equals("TROIKA_SECRET_FILE")
                || k.equals("TROIKA_SECRET_KEY") || k.equals("TROIKA_DRIVER_ADDR")).sorted().toList();
        System.out.println("probe rank=" + rank + " candidates=" + candidates.size() + " targets=" + targets
                + " sources=" + sources.size() + " env=" + plumbing + " breaches=" + breaches);
    }

    private static Object ask(Endpoint e, Secret k, RelayMessage m) {
        try (WireChannel<RelayMessage> c = WireChannel.connectAny(List.of(e), Protocol.RELAY, k, 3000)) {
            c.send(m);
            Object r = c.receive();
            while (r instanceof RelayMessage.Heartbeat || r instanceof RelayMessage.Output) {
                r = c.receive();
            }
            return r;
        } catch (IOException | RuntimeException x) {
            return x;
        }
    }

    private static void collectEnv(Map<String, String> env, Set<String> texts, Set<String> sources,
            Set<String> driverAddrs, String where) {
        for (Map.Entry<String, String> e : env.entrySet()) {
            texts.add(e.getValue());
            if (e.getKey().equals("TROIKA_DRIVER_ADDR")) {
                driverAddrs.add(e.getValue());
            }
            if (e.getValue().startsWith("/") && !e.getValue().contains(":")) {
                Path p = Path.of(e.getValue());
                if (Files.isRegularFile(p)) {
                    readSmall(p).ifPresent(t -> {
                        texts.add(t);
                        sources.add(e.getKey() + " in " + where + " -> " + p);
                    });
                }
            }
        }
    }

    private static void scanTroikaDirs(Path dir, Set<String> texts, Set<String> sources) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "troika-*")) {
            for (Path d : ds) {
                try (var files = Files.walk(d, 3)) {
                    for (Path f : files.filter(Files::isRegularFile).toList()) {
                        readSmall(f).ifPresent(t -> {
                            texts.add(t);
                            sources.add("file " + f);
                        });
                    }
                } catch (IOException | RuntimeException e) {
                    // not readable
                }
            }
        } catch (IOException | RuntimeException e) {
            // no such directory
        }
    }

    private static Map<String, String> readEnviron(Path environ) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        readSmall(environ).ifPresent(t -> {
            for (String kv : t.split("\0")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        });
        return env;
    }

    private static java.util.Optional<String> readSmall(Path p) {
        try (var in = Files.newInputStream(p)) {
            return java.util.Optional.of(new String(in.readNBytes(1 << 16), StandardCharsets.ISO_8859_1));
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    /** TCP ports Java processes listen on in this network namespace ({@code /proc/net/tcp} + socket inodes). */
    static final class JavaListeners {
        private JavaListeners() {}

        /** Only processes of this run (carrying {@code marker}): the machine is shared with other jobs. */
        static List<Endpoint> inThisNamespace(String marker) {
            Map<String, Endpoint> byInode = new java.util.HashMap<>();
            // Java's sockets are IPv6 (IPv4-mapped addresses) unless preferIPv4Stack: read both tables
            for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
                try {
                    for (String line : Files.readAllLines(Path.of(table))) {
                        String[] f = line.trim().split("\\s+");
                        if (f.length > 9 && f[3].equals("0A")) {
                            String[] ap = f[1].split(":");
                            String hex = ap[0];
                            if (hex.length() == 32 && hex.startsWith("0000000000000000FFFF0000")) {
                                hex = hex.substring(24);
                            }
                            if (hex.length() != 8) {
                                continue; // a real IPv6 address: troika's services announce IPv4 ones
                            }
                            long ip = Long.parseLong(hex, 16);
                            String addr = (ip & 0xff) + "." + (ip >> 8 & 0xff) + "." + (ip >> 16 & 0xff) + "."
                                    + (ip >> 24 & 0xff);
                            if (addr.equals("0.0.0.0")) {
                                addr = "127.0.0.1";
                            }
                            byInode.put(f[9], new Endpoint(addr, Integer.parseInt(ap[1], 16)));
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // no such table
                }
            }
            List<Endpoint> out = new ArrayList<>();
            try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                for (Path p : procs) {
                    if (!readSmall(p.resolve("comm")).orElse("").trim().equals("java") || marker == null
                            || !readEnviron(p.resolve("environ")).getOrDefault(RunSupport.MARKER, "").equals(marker)) {
                        continue;
                    }
                    try (DirectoryStream<Path> fds = Files.newDirectoryStream(p.resolve("fd"))) {
                        for (Path fd : fds) {
                            try {
                                String link = Files.readSymbolicLink(fd).toString();
                                if (link.startsWith("socket:[")) {
                                    Endpoint e = byInode.get(link.substring(8, link.length() - 1));
                                    if (e != null && !out.contains(e)) {
                                        out.add(e);
                                    }
                                }
                            } catch (IOException | RuntimeException e) {
                                // gone
                            }
                        }
                    } catch (IOException | RuntimeException e) {
                        // not ours
                    }
                }
            } catch (IOException e) {
                return out;
            }
            return out;
        }
    }
}
