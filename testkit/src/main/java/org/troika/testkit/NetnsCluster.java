package org.troika.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.troika.common.PrivateFiles;
import java.util.concurrent.TimeUnit;

/**
 * N fake hosts for integration tests: network namespaces on a bridge, each with a decoy interface that must never be
 * chosen, optionally an sshd each. Everything is created by {@link #create} and removed by {@link #close()} (processes in
 * the namespaces are killed by pid, then the namespaces, the bridge and the key directory are deleted).
 *
 * <pre>
 *   root ns:  bridge TAGbr  10.S.0.1/24
 *   netns 10.S.0.(I+1), I = 1..N:  veth "nicI" (a different name on each host)  10.S.0.(I+1)/24   -- the data network
 *             "docker0" (veth end) 10.(S+1).0.1/24 on every host (same address: routes nowhere) -- the decoy
 *             lo up; sshd on 10.S.0.(I+1):22 when asked, in its own UTS namespace named like the host
 * </pre>
 * Only 10.x subnets, only inside namespaces this class creates. Needs root and iproute2.
 */
public final class NetnsCluster implements AutoCloseable {
    /** One fake host. */
    public record Host(String netns, String address, String ifname) {}

    private final String tag;
    private final int subnet;
    private final List<Host> hosts;
    private final Path dir;
    private final MachineLock lock;
    private boolean sshd;

    private NetnsCluster(String tag, int subnet, List<Host> hosts, Path dir, MachineLock lock) {
        this.tag = tag;
        this.subnet = subnet;
        this.hosts = hosts;
        this.dir = dir;
        this.lock = lock;
    }


    /**
     * Creates {@code n} hosts.
     *
     * @param tag 2-6 lowercase letters, unique per test class (link names start with it)
     * @param subnet second octet of the data network 10.S.0.0/24 (the decoy uses S+1); unique per test class
     */
    public static NetnsCluster create(String tag, int subnet, int n) throws IOException {
        Requires.root();
        Requires.command("ip");
        if (!tag.matches("[a-z]{2,6}") || subnet < 100 || subnet > 250) {
            throw new IllegalArgumentException("tag must be 2-6 lowercase letters and subnet in 100-250");
        }
        List<Host> hosts = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            // the namespace is named after its address, so a host word names both (ip netns exec {host}) without DNS
            String address = "10." + subnet + ".0." + (i + 1);
            hosts.add(new Host(address, address, "nic" + i));
        }
        NetnsCluster c = new NetnsCluster(tag, subnet, List.copyOf(hosts), Files.createTempDirectory("netns-" + tag),
                MachineLock.take("netns-" + subnet));
        try {
            c.removeLeftovers();
            String br = tag + "br";
            ip("link", "add", br, "type", "bridge");
            ip("addr", "add", c.bridgeAddress() + "/24", "dev", br);
            ip("link", "set", br, "up");
            for (int i = 1; i <= n; i++) {
                Host h = hosts.get(i - 1);
                ip("netns", "add", h.netns());
                ip("link", "add", tag + "v" + i, "type", "veth", "peer", "name", h.ifname(), "netns", h.netns());
                ip("link", "set", tag + "v" + i, "master", br);
                ip("link", "set", tag + "v" + i, "up");
                ip("-n", h.netns(), "link", "set", "lo", "up");
                ip("-n", h.netns(), "addr", "add", h.address() + "/24", "dev", h.ifname());
                ip("-n", h.netns(), "link", "set", h.ifname(), "up");
                // a veth pair kept inside the namespace (no "dummy" link type on every kernel, e.g. gVisor)
                ip("-n", h.netns(), "link", "add", "docker0", "type", "veth", "peer", "name", "docker0p");
                ip("-n", h.netns(), "link", "set", "docker0p", "up");
                ip("-n", h.netns(), "addr", "add", "10." + (subnet + 1) + ".0.1/24", "dev", "docker0");
                ip("-n", h.netns(), "link", "set", "docker0", "up");
            }
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    public List<Host> hosts() {
        return hosts;
    }

    /** The root namespace's address on the bridge (where a launcher's services bind). */
    public String bridgeAddress() {
        return "10." + subnet + ".0.1";
    }

    /** The data subnet as CIDR. */
    public String subnet() {
        return "10." + subnet + ".0.0/24";
    }

    /** The decoy subnet as CIDR. */
    public String decoySubnet() {
        return "10." + (subnet + 1) + ".0.0/24";
    }

    /** argv prefix that runs a command inside {@code host}'s namespace. */
    public List<String> execPrefix(Host host) {
        return List.of("ip", "netns", "exec", host.netns());
    }

    /** Starts an sshd in every namespace (key-only root login, own keys and config); returns the ssh config file. */
    public Path startSshd() throws IOException {
        Path sshdBin = Requires.command("/usr/sbin/sshd");
        Requires.command("ssh-keygen");
        run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve("host_key").toString()));
        run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve("id_ed25519").toString()));
        Files.copy(dir.resolve("id_ed25519.pub"), dir.resolve("authorized_keys"));
        Files.createDirectories(Path.of("/run/sshd"));
        Files.writeString(dir.resolve("sshd_config"), String.join("\n",
                "HostKey " + dir.resolve("host_key"), "PermitRootLogin prohibit-password", "PubkeyAuthentication yes",
                "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"), "PrintMotd no", "MaxStartups 100:30:200", ""));
        Path sshConfig = dir.resolve("ssh_config");
        Files.writeString(sshConfig, String.join("\n", "Host *", "  User root",
                "  IdentityFile " + dir.resolve("id_ed25519"), "  IdentitiesOnly yes", "  StrictHostKeyChecking no",
                "  UserKnownHostsFile /dev/null", "  LogLevel ERROR", "  BatchMode yes", "  ConnectTimeout 5",
                "  ServerAliveInterval 2", "  ServerAliveCountMax 3", ""));
        sshd = true;
        for (Host h : hosts) {
            // own UTS namespace named after the namespace: Open MPI session directories must not collide
            run(List.of("ip", "netns", "exec", h.netns(), "unshare", "--uts", "/bin/sh", "-c",
                    "hostname \"$0\" && exec \"$@\"", h.netns(), sshdBin.toString(), "-f",
                    dir.resolve("sshd_config").toString(), "-o", "ListenAddress=" + h.address(), "-o",
                    "PidFile=" + dir.resolve("sshd-" + h.netns() + ".pid")));
        }
        for (Host h : hosts) {
            boolean up = false;
            for (int t = 0; t < 100 && !up; t++) {
                up = exitCode(List.of("ssh", "-F", sshConfig.toString(), h.address(), "true")) == 0;
            }
            if (!up) {
                throw new IOException("sshd in " + h.netns() + " did not answer");
            }
        }
        return sshConfig;
    }

    /** Kills every process in {@code host}'s namespace with SIGKILL (the host "dies"). */
    public void kill(Host host) throws IOException {
        for (long pid : pids(host.netns())) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Takes {@code host}'s data link down (a partition). */
    public void linkDown(Host host) throws IOException {
        ip("-n", host.netns(), "link", "set", host.ifname(), "down");
    }

    /** The pids of live (not zombie) processes in {@code host}'s namespace. */
    public List<Long> livePids(Host host) throws IOException {
        List<Long> out = new ArrayList<>();
        for (long pid : pids(host.netns())) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'Z') {
                    out.add(pid);
                }
            } catch (IOException gone) {
                // exited meanwhile
            }
        }
        return out;
    }

    private static List<Long> pids(String netns) throws IOException {
        Process p = new ProcessBuilder("ip", "netns", "pids", netns).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        waitFor(p);
        List<Long> pids = new ArrayList<>();
        for (String l : out.split("\\s+")) {
            if (l.matches("\\d+")) {
                pids.add(Long.parseLong(l));
            }
        }
        return pids;
    }

    private void removeLeftovers() {
        for (int i = 1; i <= hosts.size(); i++) {
            exitCode(List.of("ip", "netns", "del", hosts.get(i - 1).netns()));
            exitCode(List.of("ip", "link", "del", tag + "v" + i));
        }
        exitCode(List.of("ip", "link", "del", tag + "br"));
    }

    /** Kills everything in the namespaces, deletes them, the bridge and the key directory. */
    @Override
    public void close() {
        for (Host h : hosts) {
            try {
                for (int round = 0; round < 50; round++) {
                    List<Long> live = pids(h.netns());
                    if (live.isEmpty()) {
                        break;
                    }
                    for (long pid : live) {
                        ProcessHandle.of(pid).ifPresent(round < 10 ? ProcessHandle::destroy : ProcessHandle::destroyForcibly);
                    }
                    Thread.sleep(50);
                }
            } catch (IOException | InterruptedException e) {
                // namespace already gone
            }
            exitCode(List.of("ip", "netns", "del", h.netns()));
        }
        // the root-side veth ends do not always vanish with their namespace (gVisor): delete them explicitly
        for (int i = 1; i <= hosts.size(); i++) {
            exitCode(List.of("ip", "link", "del", tag + "v" + i));
        }
        exitCode(List.of("ip", "link", "del", tag + "br"));
        PrivateFiles.deleteTreeQuietly(dir);
        lock.close();
    }

    private static void ip(String... args) throws IOException {
        List<String> argv = new ArrayList<>();
        argv.add("ip");
        argv.addAll(List.of(args));
        run(argv);
    }

    private static void run(List<String> argv) throws IOException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = waitFor(p);
        if (code != 0) {
            throw new IOException(String.join(" ", argv) + " failed (" + code + "): " + out.trim());
        }
    }

    private static int exitCode(List<String> argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return waitFor(p);
        } catch (IOException e) {
            return -1;
        }
    }

    private static int waitFor(Process p) throws IllegalStateException {
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
