package org.troika.testkit;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Debian trixie root with Open MPI 5.0.7 that {@code scripts/openmpi5-root.sh} (run by
 * {@code scripts/install-deps.sh --test}) builds once per machine, and how a test runs a command inside it.
 *
 * <p>Every command gets its own mount namespace ({@code unshare --mount}, private propagation) in which the root is
 * bind-mounted onto itself (so {@code ip netns exec} works inside the chroot), and gets {@code /proc}, {@code /sys},
 * the host's {@code /dev} (with {@code /dev/pts}), a private {@code /dev/shm}, the host's {@code /run/netns}
 * (namespace hosts created before the command), {@code /etc/hosts}, the host's JDKs under {@code /usr/lib/jvm} that
 * the root does not have (the JDK 22+ for FFM ranks), and the shared folders at their own paths: {@code /tmp}, the
 * checkout and the local Maven repository (so test programs, temporary folders, the packaged distribution and the
 * test class path mean the same inside and out). The mounts exist only in that namespace: they vanish with its last
 * process, whatever way the command or the test JVM ends, and nothing is ever mounted on the host.
 *
 * <p>The chroot'd command is exec'd, not forked: the pid a test gets is the command's own (signals reach it
 * directly). A host's own mount namespace (a fake host with private /tmp and /dev/shm) composes: it is made inside
 * this one by whatever the command runs ({@code ip netns exec}, {@code unshare}), which the root contains.
 */
public final class OpenMpi5Root {
    /** Where the root is; the same variable and default as {@code scripts/openmpi5-root.sh}. */
    public static final String ROOT_ENV = "TROIKA_OMPI5_ROOT";
    public static final Path DEFAULT_ROOT = Path.of("/var/cache/troika-test/openmpi5-root");
    /** Written last by the build script; its absence means the root is not (completely) built. */
    static final String MARKER = ".troika-root-packages";
    /** The root's own JDK, which runs troika inside. */
    public static final String JAVA_HOME = "/usr/lib/jvm/java-21-openjdk-amd64";

    /**
     * {@code sh -c} script: {@code $1} is the root, then folders to share up to {@code --}, then the command. Every
     * mount is in the caller's private namespace; {@code set -e} stops before the chroot if one fails.
     */
    private static final String ENTER = String.join("\n",
            "set -e",
            "R=$1; shift",
            "mount --bind \"$R\" \"$R\"",
            "mount -t proc proc \"$R/proc\"",
            "mount -t sysfs sysfs \"$R/sys\"",
            "mount --rbind /dev \"$R/dev\"",
            "mount -t tmpfs -o mode=1777,nosuid,nodev shm \"$R/dev/shm\"",
            "if [ -d /run/netns ]; then mkdir -p \"$R/run/netns\"; mount --rbind /run/netns \"$R/run/netns\"; fi",
            "mount --bind /etc/hosts \"$R/etc/hosts\"",
            "for d in /usr/lib/jvm/*; do",
            "  [ -d \"$d\" ] && [ ! -L \"$d\" ] || continue",
            "  if [ ! -d \"$R$d\" ] || [ -z \"$(ls -A \"$R$d\")\" ]; then mkdir -p \"$R$d\"; mount --bind \"$d\" \"$R$d\"; fi",
            "done",
            "while [ \"$1\" != -- ]; do mkdir -p \"$R$1\"; mount --rbind \"$1\" \"$R$1\"; shift; done",
            "shift",
            "exec chroot \"$R\" \"$@\"");

    private OpenMpi5Root() {}

    /** The root's folder ({@value #ROOT_ENV}, else {@link #DEFAULT_ROOT}). */
    public static Path path() {
        String p = System.getenv(ROOT_ENV);
        return p == null || p.isBlank() ? DEFAULT_ROOT : Path.of(p);
    }

    /** Whether the build script finished building the root. */
    public static boolean built() {
        return Files.isRegularFile(path().resolve(MARKER));
    }

    /** Requires root, {@code unshare} and a built root (skipped outside CI, failed under CI). */
    public static void require() {
        Requires.root();
        Requires.command("unshare");
        Requires.check(built(), "the Open MPI 5 root " + path() + " is not built (run scripts/install-deps.sh --test,"
                + " or scripts/openmpi5-root.sh, as root)");
    }

    /**
     * Runs {@code args} inside the root and exits with its code, for scripts ({@code bench/ulfm.sh}): {@code java -cp
     * testkit/target/classes org.troika.testkit.OpenMpi5Root COMMAND...}, run from the checkout.
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command(List.of(args))).inheritIO();
        applyEnvironment(pb.environment());
        System.exit(pb.start().waitFor());
    }

    /** {@code argv} run inside the root, with {@link #sharedFolders()} visible at their own paths. */
    public static List<String> command(List<String> argv) {
        List<String> out = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                ENTER, "sh", path().toString()));
        for (Path p : sharedFolders()) {
            out.add(p.toString());
        }
        out.add("--");
        out.addAll(argv);
        return List.copyOf(out);
    }

    /**
     * What a command inside needs in its environment on top of the caller's: the root's PATH and JDK, a HOME, and
     * Open MPI's consent to run as root (both variables; either alone is refused).
     */
    public static Map<String, String> environment() {
        return Map.of("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "JAVA_HOME", JAVA_HOME,
                "HOME", "/root", "OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }

    /** Applies {@link #environment()} to a process environment (and drops the host's library path). */
    public static void applyEnvironment(Map<String, String> env) {
        env.remove("LD_LIBRARY_PATH");
        env.putAll(environment());
    }

    /**
     * Host folders visible inside at the same path: {@code /tmp} (JUnit's temporary folders, compiled test programs),
     * the checkout (the topmost folder with a {@code pom.xml} above the working directory: the packaged distribution
     * and every module's classes) and the local Maven repository (the test class path's jars).
     */
    static Set<Path> sharedFolders() {
        Set<Path> out = new LinkedHashSet<>();
        out.add(Path.of("/tmp"));
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        Path checkout = dir;
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("pom.xml"))) {
                checkout = p;
            }
        }
        out.add(checkout);
        Path repo = mavenRepository();
        if (repo != null && !repo.startsWith(checkout)) {
            out.add(repo);
        }
        return out;
    }

    /** The local Maven repository, found from where JUnit's jar was loaded ({@code REPO/org/junit/...}). */
    private static Path mavenRepository() {
        try {
            Path jar = Path.of(org.junit.jupiter.api.Test.class.getProtectionDomain().getCodeSource().getLocation()
                    .toURI());
            for (Path p = jar; p != null; p = p.getParent()) {
                if (p.getFileName() != null && p.getFileName().toString().equals("org") && p.getParent() != null) {
                    return p.getParent();
                }
            }
        } catch (URISyntaxException | SecurityException | NullPointerException | NoClassDefFoundError e) {
            // not from a jar: the tests' class path is then inside the checkout
        }
        return null;
    }
}
