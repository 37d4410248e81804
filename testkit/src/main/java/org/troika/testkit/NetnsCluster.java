package org.troika.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.troika.common.PrivateFiles;
import java.util.concurrent.TimeUnit;

/**
 * N fake hosts for integration tests that share nothing a real cluster's nodes would not share: each host is a network
 * namespace on a bridge (with a decoy interface that must never be chosen) <b>and</b> its own mount and UTS namespace,
 * with an empty private {@code /tmp} and {@code /dev/shm} (tmpfs), its own hostname ({@code TAG1..TAGN}) and its own
 * {@code /etc/hosts} naming every host of the cluster. A long-lived <i>anchor</i> process holds each host's
 * namespaces; everything started "on" a host (task services, sshd, daemons, ranks) is entered into all three with
 * {@code nsenter} ({@link #execPrefix}, {@link #remoteShell()}). Visible on every host: the root file system outside
 * {@code /tmp} and {@code /dev/shm} (the installation, the JDK, MPI), the {@link #sharedHome()} directory, and the paths
 * given to {@link #create(String, int, int, List)} (bind-mounted at the same path, e.g. a distribution or class path
 * that lives under {@code /tmp}). Everything is created by {@link #create} and removed by {@link #close()} (processes
 * in the namespaces are killed by pid, then the namespaces, the bridge and the shared home are deleted).
 *
 * <pre>
 *   root ns:  bridge TAGbr  10.S.0.1/24
 *   netns 10.S.0.(I+1), I = 1..N:  veth "nicI" (a different name on each host)  10.S.0.(I+1)/24   -- the data network
 *             "docker0" (veth end) 10.(S+1).0.1/24 on every host (same address: routes nowhere) -- the decoy
 *             lo up; hostname TAG+I; private /tmp, /dev/shm, /etc/hosts; sshd on 10.S.0.(I+1):22 when asked
 * </pre>
 * With {@link #onBridges} the hosts are spread over several bridges, each its own subnet (10.S.0.0/24, 10.(S+2).0.0/24,
 * ...; the decoy stays 10.(S+1)): a host on one bridge reaches the root namespace only through that bridge's address,
 * and no host routes to another bridge's hosts (two networks the launcher sits on).
 * Only 10.x subnets, only inside namespaces this class creates. Needs root, iproute2 and util-linux (unshare, nsenter).
 */
public final class NetnsCluster implements AutoCloseable {
    /**
     * One fake host.
     *
     * @param netns the network namespace (named after the address, so a host word names both)
     * @param address its address on the data network
     * @param ifname its data interface
     * @param hostname its kernel hostname (UTS namespace)
     */
    public record Host(String netns, String address, String ifname, String hostname) {}

    private final String tag;
    private final int subnet;
    private final int bridges;
    private final List<Host> hosts;
    private final Path dir;
    private final List<MachineLock> locks;
    /** Every host also has its own PID namespace and /proc ({@link #withPrivatePids}). */
    private final boolean privatePids;
    /** Ends the cluster when its JVM ends without {@link #close()} (a bench or test killed by TERM or Ctrl-C). */
    private final Thread cleanupAtExit = new Thread(this::closeOnce, "netns-cluster-cleanup");
    private boolean closed;
    private final Map<String, Process> anchors = new LinkedHashMap<>();
    private final Map<String, Long> anchorPids = new LinkedHashMap<>();
    /** Shared paths bound into the hosts' private /tmp or /dev/shm (not leftovers of a job). */
    private final List<String> sharedPrivate = new ArrayList<>();
    private boolean sshd;

    private NetnsCluster(String tag, int subnet, int bridges, List<Host> hosts, Path dir, List<MachineLock> locks,
            boolean privatePids) {
        this.privatePids = privatePids;
        this.tag = tag;
        this.subnet = subnet;
        this.bridges = bridges;
        this.hosts = hosts;
        this.dir = dir;
        this.locks = locks;
    }

    /** {@link #create(String, int, int, List)} sharing the distribution under test ({@link Dist#home()}) when built. */
    public static NetnsCluster create(String tag, int subnet, int n) throws IOException {
        return create(tag, subnet, n, withDist(List.of()));
    }

    /** {@code shared} and the distribution under test ({@link Dist#home()}) when it is built. */
    private static List<Path> withDist(List<Path> shared) {
        List<Path> all = new ArrayList<>(shared);
        Dist.homeIfBuilt().ifPresent(all::add);
        return all;
    }


    /**
     * Creates {@code n} hosts.
     *
     * @param tag 2-6 lowercase letters, unique per test class (link names start with it)
     * @param subnet second octet of the data network 10.S.0.0/24 (the decoy uses S+1); unique per test class
     * @param shared paths visible at the same place on every host (an installation, a class path); only those under
     *     {@code /tmp} or {@code /dev/shm} need naming, everything else outside them is visible anyway
     */
    public static NetnsCluster create(String tag, int subnet, int n, List<Path> shared) throws IOException {
        return create(tag, subnet, n, shared, 1, false);
    }

    /**
     * Like {@link #create(String, int, int, List)}, and every host has its own PID namespace with its own
     * {@code /proc}, as a real node has its own process table: a walk through {@code /proc} on one host reads that
     * host's processes only (with one shared PID namespace it reads every host's, which makes per-host work grow with
     * the host count). Commands enter it through {@link #remoteShell()} / {@link #execPrefix} ({@code ip netns exec}
     * does not). Pids that ranks print are then the host's, not this machine's: not for tests that signal a rank by the
     * pid it printed. The Open MPI 5 root cannot use it (entering a host's mount namespace leaves the root).
     */
    public static NetnsCluster withPrivatePids(String tag, int subnet, int n, List<Path> shared) throws IOException {
        return create(tag, subnet, n, withDist(shared), 1, true);
    }

    /**
     * {@code n} hosts spread over {@code bridges} bridges in turn (host 1 on the first, host 2 on the second, ...), bridge
     * {@code b}'s subnet 10.(S+2b).0.0/24, sharing the distribution under test when built.
     */
    public static NetnsCluster onBridges(String tag, int subnet, int n, int bridges) throws IOException {
        return create(tag, subnet, n, withDist(List.of()), bridges, false);
    }

    private static NetnsCluster create(String tag, int subnet, int n, List<Path> shared, int bridges,
            boolean privatePids) throws IOException {
        Requires.root();
        Requires.command("ip");
        Requires.command("unshare");
        Requires.command("nsenter");
        if (!tag.matches("[a-z]{2,6}") || subnet < 100 || subnet + 2 * (bridges - 1) > 250 || bridges < 1) {
            throw new IllegalArgumentException("tag must be 2-6 lowercase letters and subnets in 100-250");
        }
        List<Host> hosts = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            // the namespace is named after its address, so a host word names both (ip netns exec {host}) without DNS
            String address = "10." + bridgeSubnet(subnet, (i - 1) % bridges) + ".0." + (i + 1);
            hosts.add(new Host(address, address, "nic" + i, tag + i));
        }
        List<MachineLock> locks = new ArrayList<>();
        for (int b = 0; b < bridges; b++) {
            locks.add(MachineLock.take("netns-" + bridgeSubnet(subnet, b)));
        }
        // the shared home must not live under /tmp: every host has its own /tmp
        NetnsCluster c = new NetnsCluster(tag, subnet, bridges, List.copyOf(hosts),
                Files.createTempDirectory(Path.of("/var/tmp"), "troika-netns-" + tag + "-"), locks, privatePids);
        Runtime.getRuntime().addShutdownHook(c.cleanupAtExit);
        try {
            c.removeLeftovers();
            for (int b = 0; b < bridges; b++) {
                ip("link", "add", c.bridgeName(b), "type", "bridge");
                ip("addr", "add", "10." + bridgeSubnet(subnet, b) + ".0.1/24", "dev", c.bridgeName(b));
                ip("link", "set", c.bridgeName(b), "up");
            }
            for (int i = 1; i <= n; i++) {
                Host h = hosts.get(i - 1);
                ip("netns", "add", h.netns());
                ip("link", "add", tag + "v" + i, "type", "veth", "peer", "name", h.ifname(), "netns", h.netns());
                ip("link", "set", tag + "v" + i, "master", c.bridgeName((i - 1) % bridges));
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
            StringBuilder etcHosts = new StringBuilder("127.0.0.1 localhost\n::1 localhost ip6-localhost\n");
            for (Host h : hosts) {
                etcHosts.append(h.address()).append(' ').append(h.hostname()).append('\n');
            }
            Files.writeString(c.dir.resolve("etc-hosts"), etcHosts.toString());
            Files.writeString(c.dir.resolve("enter"), ENTER.replace("@DIR@", c.dir.toString())
                    .replace("@PIDNS@", privatePids ? " -p" : ""));
            Files.setPosixFilePermissions(c.dir.resolve("enter"), PosixFilePermissions.fromString("rwx------"));
            for (Host h : hosts) {
                c.startAnchor(h, shared);
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

    /** The root namespace's address on the (first) bridge (where a launcher's services bind). */
    public String bridgeAddress() {
        return "10." + subnet + ".0.1";
    }

    /** The root namespace's address on {@code host}'s bridge: the only one of this machine it reaches. */
    public String bridgeAddress(Host host) {
        return host.address().substring(0, host.address().lastIndexOf('.')) + ".1";
    }

    private static int bridgeSubnet(int subnet, int bridge) {
        return subnet + 2 * bridge;
    }

    private String bridgeName(int bridge) {
        return bridge == 0 ? tag + "br" : tag + "br" + bridge;
    }

    /** The data subnet as CIDR. */
    public String subnet() {
        return "10." + subnet + ".0.0/24";
    }

    /** The decoy subnet as CIDR. */
    public String decoySubnet() {
        return "10." + (subnet + 1) + ".0.0/24";
    }

    /**
     * argv prefix that runs a command on {@code host}: in its network, mount and UTS namespaces, with a fresh login-like
     * environment ({@code PATH}, {@code HOME}, {@code LANG}; nothing of the caller's), as ssh would.
     */
    public List<String> execPrefix(Host host) {
        return List.of(dir.resolve("enter").toString(), host.netns());
    }

    /** A {@code --remote-shell} template that starts commands on the host named by {@code {host}} (an address). */
    public String remoteShell() {
        return dir.resolve("enter") + " {host}";
    }

    /**
     * A directory visible at the same path on every host (the cluster's "shared home", outside {@code /tmp}): where a
     * test puts the programs and files every host must see.
     */
    public Path sharedHome() throws IOException {
        Path home = dir.resolve("home");
        Files.createDirectories(home);
        return home;
    }

    /**
     * The entries of {@code host}'s private {@code /tmp} and {@code /dev/shm} (as {@code /tmp/NAME},
     * {@code /dev/shm/NAME}), for checks that a job left nothing behind.
     */
    public List<String> privateFiles(Host host) throws IOException {
        List<String> argv = new ArrayList<>(execPrefix(host));
        argv.addAll(List.of("/bin/sh", "-c", "cd /tmp && for f in * .[!.]*; do [ -e \"$f\" ] && echo \"/tmp/$f\"; done;"
                + " cd /dev/shm && for f in * .[!.]*; do [ -e \"$f\" ] && echo \"/dev/shm/$f\"; done; true"));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (waitFor(p) != 0) {
            throw new IOException("cannot list the private files of " + host.netns() + ": " + out.trim());
        }
        return out.lines().filter(l -> !l.isBlank()).toList();
    }

    /**
     * What a job left on {@code host}, waiting up to {@code wait} for it to go: live processes (other than the
     * anchor and sshd) and entries in its private {@code /tmp} and {@code /dev/shm}, except Open MPI's own session
     * directories ({@code /tmp/ompi.*}), the JVM's {@code hsperfdata_*} and the shared paths given to {@link #create}.
     * Empty when clean.
     */
    public List<String> leftovers(Host host, java.time.Duration wait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<String> left = new ArrayList<>();
            for (long pid : livePids(host)) {
                left.add("process " + pid + " " + ProcessHandle.of(pid).flatMap(h -> h.info().commandLine()).orElse("?"));
            }
            for (String f : privateFiles(host)) {
                if (f.startsWith("/tmp/ompi.") || sharedPrivate.stream().anyMatch(p -> p.equals(f)
                        || p.startsWith(f + "/"))) {
                    continue; // Open MPI's own session directories; the shared paths the test declared
                }
                if (f.startsWith("/tmp/hsperfdata_")) {
                    continue; // the JVM's perf data (a SIGKILLed rank's file is removed by the next JVM on the host)
                }
                left.add("file " + f);
            }
            if (left.isEmpty() || System.nanoTime() > deadline) {
                return left;
            }
            Thread.sleep(100);
        }
    }

    /** The hostname {@code host}'s UTS namespace reports (read from inside the host). */
    public String hostnameOf(Host host) throws IOException {
        List<String> argv = new ArrayList<>(execPrefix(host));
        argv.add("hostname");
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        waitFor(p);
        return out;
    }

    /**
     * The anchor of one host: enters a new mount and UTS namespace inside the host's network namespace, names the
     * host, mounts empty tmpfs on /tmp and /dev/shm and the cluster's /etc/hosts, re-binds the shared paths that lie
     * under those mounts (staged under the shared directory first), prints its pid and sleeps until killed.
     */
    private void startAnchor(Host h, List<Path> shared) throws IOException {
        Path stage = dir.resolve("stage-" + h.hostname());
        List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", h.netns(), "unshare", "--mount", "--uts",
                "--propagation", "private"));
        if (privatePids) {
            // the anchor becomes the host's init (killed with unshare: the whole host goes), /proc its own
            argv.addAll(List.of("--pid", "--kill-child", "--mount-proc"));
        }
        argv.addAll(List.of(privatePids ? "/bin/bash" : "/bin/sh", "-c",
                ANCHOR.replace("@SLEEP@", privatePids ? INIT_WAIT : "exec sleep infinity"), h.hostname(),
                stage.toString(), dir.resolve("etc-hosts").toString()));
        for (Path p : shared) {
            String abs = p.toAbsolutePath().normalize().toString();
            if (abs.equals("/tmp") || abs.startsWith("/tmp/") || abs.startsWith("/dev/shm/")) {
                argv.add(abs);
                if (!sharedPrivate.contains(abs)) {
                    sharedPrivate.add(abs);
                }
            }
        }
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        anchors.put(h.netns(), p);
        java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8));
        String line = r.readLine();
        if (line == null || !line.startsWith("ready ")) {
            StringBuilder rest = new StringBuilder(line == null ? "" : line);
            for (String l; (l = r.readLine()) != null; ) {
                rest.append('\n').append(l);
            }
            throw new IOException("the anchor of " + h.netns() + " did not start: " + rest);
        }
        long pid = Long.parseLong(line.substring("ready ".length()).trim());
        if (privatePids) {
            // it printed its pid in the host's namespace (1): nsenter needs this machine's, that of unshare's child
            pid = p.toHandle().children().findFirst().orElseThrow(() -> new IOException("the anchor of " + h.netns()
                    + " has no init process")).pid();
        }
        anchorPids.put(h.netns(), pid);
        Files.writeString(dir.resolve("anchor-" + h.netns() + ".pid"), pid + "\n");
    }

    /** $0 hostname, $1 staging dir, $2 hosts file, $3... shared paths under /tmp or /dev/shm. */
    private static final String ANCHOR = String.join("\n",
            "set -e",
            "hostname \"$0\"",
            "stage=$1; etc_hosts=$2; shift 2",
            // a shared path may be a file (a jar on a reactor build's class path) or a folder: its mount point alike
            "i=0; for p in \"$@\"; do",
            "  if [ -d \"$p\" ]; then mkdir -p \"$stage/$i\"; else mkdir -p \"$stage\"; : > \"$stage/$i\"; fi",
            "  mount --bind \"$p\" \"$stage/$i\"; i=$((i+1))",
            "done",
            "mount -t tmpfs -o mode=1777 troika-host-tmp /tmp",
            "mount -t tmpfs -o mode=1777 troika-host-shm /dev/shm",
            "mount --bind \"$etc_hosts\" /etc/hosts",
            "i=0; for p in \"$@\"; do",
            "  if [ -d \"$stage/$i\" ]; then mkdir -p \"$p\"; else mkdir -p \"${p%/*}\"; [ -e \"$p\" ] || : > \"$p\"; fi",
            "  mount --move \"$stage/$i\" \"$p\"; i=$((i+1))",
            "done",
            "echo \"ready $$\"",
            "@SLEEP@");

    /**
     * How the anchor waits as a host's init (private PIDs): it adopts the host's orphans, and with a CHLD trap bash
     * reaps each one that ends, while it waits on its stdin (this JVM's pipe: it ends with the JVM) without a child of
     * its own that would count as a leftover.
     */
    private static final String INIT_WAIT = "trap : CHLD; while :; do read -r _; [ $? -eq 1 ] && exit 0; done";

    /** enter HOST CMD...: CMD on fake host HOST, in its namespaces, with a login-like environment (as over ssh). */
    private static final String ENTER = String.join("\n",
            "#!/bin/sh",
            "# enter HOST CMD...: runs CMD on the fake host HOST (its network, mount and UTS namespaces) with a fresh",
            "# login-like environment, as ssh would. Written by testkit NetnsCluster.",
            "h=$1; shift",
            "pid=$(cat \"@DIR@/anchor-$h.pid\" 2>/dev/null) || { echo \"enter: no host $h\" >&2; exit 255; }",
            "exec nsenter -t \"$pid\" -m -u -n@PIDNS@ --wd=/ -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\",
            "  HOME=/root LANG=C.UTF-8 ${JAVA_HOME:+JAVA_HOME=$JAVA_HOME} \"$@\"",
            "");

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
            // on the host: its sessions (and the daemons and ranks they start) see its private /tmp and hostname
            List<String> argv = new ArrayList<>(execPrefix(h));
            argv.addAll(List.of(sshdBin.toString(), "-f", dir.resolve("sshd_config").toString(), "-o",
                    "ListenAddress=" + h.address(), "-o", "PidFile=" + dir.resolve("sshd-" + h.netns() + ".pid")));
            run(argv);
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

    /**
     * Kills every process in {@code host}'s namespace with SIGKILL (the host "dies"). With private PIDs that includes
     * the host's init, so the host cannot be entered again.
     */
    public void kill(Host host) throws IOException {
        for (long pid : pids(host.netns())) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Takes {@code host}'s data link down (a partition). */
    public void linkDown(Host host) throws IOException {
        ip("-n", host.netns(), "link", "set", host.ifname(), "down");
    }

    /** The pids of live (not zombie) processes in {@code host}'s namespace, apart from its anchor and its sshd. */
    public List<Long> livePids(Host host) throws IOException {
        List<Long> out = new ArrayList<>();
        Long anchor = anchorPids.get(host.netns());
        Process anchorStart = anchors.get(host.netns()); // unshare, the init's parent with private PIDs
        Long sshdPid = null;
        try {
            sshdPid = Long.parseLong(Files.readString(dir.resolve("sshd-" + host.netns() + ".pid")).trim());
        } catch (IOException | NumberFormatException noSshd) {
            // no sshd on this host
        }
        for (long pid : pids(host.netns())) {
            if (anchor != null && pid == anchor || sshdPid != null && pid == sshdPid
                    || anchorStart != null && pid == anchorStart.pid()) {
                continue;
            }
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
        for (int b = 0; b < bridges; b++) {
            exitCode(List.of("ip", "link", "del", bridgeName(b)));
        }
    }

    /** Kills everything in the namespaces, deletes them, the bridge and the key directory. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(cleanupAtExit);
        } catch (IllegalStateException e) {
            // the JVM is ending: the hook runs closeOnce itself
        }
        closeOnce();
    }

    private synchronized void closeOnce() {
        if (closed) {
            return;
        }
        closed = true;
        for (Host h : hosts) {
            Process anchor = anchors.get(h.netns());
            try {
                if (privatePids && anchor != null) {
                    // its init ignores SIGTERM; killing unshare kills the init and with it every process of the host
                    anchor.destroyForcibly();
                    anchor.waitFor();
                }
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
            if (anchor != null) {
                anchor.destroyForcibly();
            }
        }
        // the root-side veth ends do not always vanish with their namespace (gVisor): delete them explicitly
        for (int i = 1; i <= hosts.size(); i++) {
            exitCode(List.of("ip", "link", "del", tag + "v" + i));
        }
        for (int b = 0; b < bridges; b++) {
            exitCode(List.of("ip", "link", "del", bridgeName(b)));
        }
        PrivateFiles.deleteTreeQuietly(dir);
        locks.forEach(MachineLock::close);
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
