package org.troika.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.troika.common.PrivateFiles;
import org.troika.common.TroikaEnv;
import org.troika.launcher.mpi.VersionProbeCache;

/**
 * Class-data sharing for the rank JVMs that mpirun starts on the driver's own machine (Spark local mode): an AppCDS
 * archive of the classes a rank loads (JDK, troika, the function's), recorded by rank 0 of the first job
 * ({@code -XX:ArchiveClassesAtExit}) and mapped by every rank of later jobs ({@code -XX:SharedArchiveFile}). The
 * same per-user cache and rules as {@code bin/troika-rankenv}'s {@code TROIKA_JAVA_CDS}, decided once by the driver
 * instead of in every rank, since the driver runs on the ranks' machine:
 *
 * <ul>
 *   <li>Where: {@code $TROIKA_CDS_DIR}, default {@code ${XDG_CACHE_HOME:-$HOME/.cache}/troika/cds/<host hash>},
 *       mode 0700 and owned by the user (else no archive).</li>
 *   <li>Key: SHA-256 of the java binary's real path and its JDK's {@code release} file, the JVM options and the
 *       path, size and modification time of every class-path jar: a rebuilt jar or another JDK records anew.</li>
 *   <li>The driver moves rank 0's recording into place only after a successful job and only if the JVM finished
 *       writing it (the header's magic is written last); a stale archive is ignored by the JVM, never fatal.</li>
 *   <li>Off: {@code TROIKA_JAVA_CDS=0}; options that choose CDS themselves; a class path with a non-empty folder
 *       (the JVM refuses to archive one and would fail the rank at exit); a JDK older than 13.</li>
 * </ul>
 *
 * Archives older than 30 days are removed when a new one is stored, as {@code troika-rankenv} does.
 */
final class RankCds {
    /** The first four bytes of a finished dynamic archive (magic 0xf00baba8, little-endian). */
    static final byte[] DYNAMIC_MAGIC = {(byte) 0xa8, (byte) 0xab, 0x0b, (byte) 0xf0};
    /** CDS messages off: nothing is added to the ranks' output. */
    static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    private static final Duration MAX_AGE = Duration.ofDays(30);
    private static final Duration STALE_RECORDING = Duration.ofHours(1);
    private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

    /**
     * What one launch does: map {@code archive}, or have rank 0 record into {@code recording} (moved to
     * {@code archive} by {@link #keep}), or neither ({@code why} says why).
     */
    record Plan(Path archive, Path recording, String why) {
        static Plan off(String why) {
            return new Plan(null, null, why);
        }

        /** The options of every rank's JVM, before the user's. */
        List<String> jvmOptions() {
            List<String> o = new ArrayList<>();
            if (archive != null && recording == null) {
                o.add("-XX:SharedArchiveFile=" + archive);
                o.add("-Xshare:auto");
            }
            if (archive != null) {
                o.addAll(QUIET);
            }
            return o;
        }

        /** One line for {@code verbose}. */
        String describe() {
            return recording != null ? "rank 0 records a class-data-sharing archive for " + archive
                    : archive != null ? "ranks map the class-data-sharing archive " + archive
                    : "no class-data-sharing archive for the ranks: " + why;
        }
    }

    private RankCds() {}

    /**
     * Decides for a rank JVM {@code java [jvmOptions] -cp classpath ...} on this machine; never throws (any problem
     * means no archive).
     *
     * @param env the driver's environment with the job's extra variables ({@code TROIKA_JAVA_CDS},
     *     {@code TROIKA_CDS_DIR}, {@code XDG_CACHE_HOME}, {@code HOME}, {@code PATH})
     * @param host the ranks' host word (names the cache folder, as {@code TROIKA_HOSTNAME} does for troika-rankenv)
     */
    static Plan plan(Map<String, String> env, String host, String java, List<String> jvmOptions, String classpath) {
        if ("0".equals(env.get(TroikaEnv.JAVA_CDS))) {
            return Plan.off(TroikaEnv.JAVA_CDS + "=0");
        }
        String refused = refusedOption(jvmOptions);
        if (refused != null) {
            return Plan.off("the JVM options choose class-data sharing themselves (" + refused + ")");
        }
        try {
            String javaId = javaIdentity(java, env);
            if (javaId == null) {
                return Plan.off(java + " is not a JDK 13 or later with a release file");
            }
            List<String> stamps = new ArrayList<>();
            String folder = classPathStamps(classpath, stamps);
            if (folder != null) {
                return Plan.off("the class path holds the non-empty folder " + folder + ", which the JVM does not archive"
                        + " (package it as a jar)");
            }
            Path dir = directory(env, host);
            if (dir == null) {
                return Plan.off("no cache folder (set HOME, XDG_CACHE_HOME or " + CDS_DIR + ")");
            }
            if (!usable(dir)) {
                return Plan.off(dir + " is not a folder of " + System.getProperty("user.name"));
            }
            Path archive = dir.resolve(key(javaId, jvmOptions, stamps) + ".jsa");
            if (Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS)) {
                return new Plan(archive, null, "");
            }
            removeStaleRecordings(dir);
            Path recording = dir.resolve(archive.getFileName() + "." + Long.toHexString(
                    ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE) + ".recording");
            return new Plan(archive, recording, "");
        } catch (IOException | RuntimeException e) {
            return Plan.off(String.valueOf(e.getMessage()));
        }
    }

    /** {@code TROIKA_CDS_DIR}: the cache folder itself (no host part), as for troika-rankenv. */
    static final String CDS_DIR = "TROIKA_CDS_DIR";

    /** The cache folder: {@code $TROIKA_CDS_DIR}, else {@code <troika cache>/cds/<host>}; {@code null} without one. */
    static Path directory(Map<String, String> env, String host) {
        String d = env.get(CDS_DIR);
        if (d != null && !d.isBlank()) {
            return Path.of(d);
        }
        Path base = VersionProbeCache.defaultDir(env);
        return base == null ? null : base.resolve("cds").resolve(host);
    }

    /** The first JVM option that chooses CDS itself (or a module path, which the archive does not follow), or {@code null}. */
    static String refusedOption(List<String> jvmOptions) {
        for (String o : jvmOptions) {
            if (o.equals("-Xshare:off") || o.equals("-Xshare:dump") || o.startsWith("-XX:SharedArchiveFile=")
                    || o.startsWith("-XX:ArchiveClassesAtExit=") || o.equals("-XX:+AutoCreateSharedArchive")
                    || o.startsWith("-XX:SharedClassListFile=") || o.startsWith("-XX:AOT")
                    || o.startsWith("--module-path") || o.equals("-p") || o.startsWith("--upgrade-module-path")) {
                return o;
            }
        }
        return null;
    }

    /** The cache key (pure): SHA-256 hex of the JVM's identity, its options and the class path's stamps. */
    static String key(String javaIdentity, List<String> jvmOptions, List<String> classPathStamps) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (String part : List.of(javaIdentity, String.join("\u0000", jvmOptions),
                    String.join("\u0000", classPathStamps))) {
                d.update(part.getBytes(StandardCharsets.UTF_8));
                d.update((byte) 1);
            }
            return "spark-" + HexFormat.of().formatHex(d.digest(), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    /**
     * Adds {@code path size mtime} of every class-path entry to {@code stamps} ({@code dir/*}: of each jar in it, in
     * name order; a missing entry: its path); returns the first non-empty folder, which makes an archive impossible.
     */
    static String classPathStamps(String classpath, List<String> stamps) throws IOException {
        for (String entry : classpath.split(":", -1)) {
            if (entry.equals("*") || entry.endsWith("/*")) {
                Path dir = Path.of(entry.length() == 1 ? "." : entry.substring(0, entry.length() - 2));
                List<Path> jars = new ArrayList<>();
                if (Files.isDirectory(dir)) {
                    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.{jar,JAR}")) {
                        s.forEach(jars::add);
                    }
                }
                jars.sort(null);
                for (Path j : jars) {
                    stamps.add(stamp(j));
                }
            } else {
                Path p = Path.of(entry.isEmpty() ? "." : entry);
                if (Files.isDirectory(p)) {
                    try (DirectoryStream<Path> s = Files.newDirectoryStream(p)) {
                        if (s.iterator().hasNext()) {
                            return p.toString();
                        }
                    }
                }
                stamps.add(stamp(p));
            }
        }
        return null;
    }

    private static String stamp(Path p) {
        try {
            return p.toAbsolutePath() + " " + Files.size(p) + " " + Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return p.toAbsolutePath().toString();
        }
    }

    /**
     * The java binary's real path and its JDK's {@code release} text, or {@code null} when that is not a JDK 13 or
     * later (dynamic archives need 13).
     */
    static String javaIdentity(String java, Map<String, String> env) throws IOException {
        Path bin = resolve(java, env);
        if (bin == null) {
            return null;
        }
        Path real = bin.toRealPath();
        Path home = real.getParent() == null ? null : real.getParent().getParent();
        Path release = home == null ? null : home.resolve("release");
        if (release == null || !Files.isRegularFile(release)) {
            return null;
        }
        String text = Files.readString(release, StandardCharsets.UTF_8);
        Matcher m = JAVA_VERSION.matcher(text);
        if (!m.find() || Integer.parseInt(m.group(1)) < 13) {
            return null;
        }
        return real + "\n" + text;
    }

    private static Path resolve(String command, Map<String, String> env) {
        if (command.contains("/")) {
            return Files.isRegularFile(Path.of(command)) ? Path.of(command) : null;
        }
        for (String d : env.getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, command))) {
                return Path.of(d, command);
            }
        }
        return null;
    }

    /** Creates the folder (0700) if needed; whether it is a folder (not a link) owned by this user. */
    private static boolean usable(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir, PrivateFiles.dirMode());
        }
        return Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                && Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"));
    }

    /** Recordings of drivers that died before keeping or discarding them. */
    private static void removeStaleRecordings(Path dir) {
        removeOlderThan(dir, "*.recording", STALE_RECORDING);
    }

    private static void removeOlderThan(Path dir, String glob, Duration age) {
        FileTime limit = FileTime.from(Instant.now().minus(age));
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, glob)) {
            for (Path p : s) {
                if (Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).compareTo(limit) < 0) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort
        }
    }

    /**
     * After a successful job: moves rank 0's recording into place if the JVM finished writing it; a recording cut
     * short is deleted. Returns whether an archive was stored. Nothing to do for other plans.
     */
    static boolean keep(Plan p) {
        if (p.recording() == null || !Files.isRegularFile(p.recording(), LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try {
            if (!finished(p.recording())) {
                return false;
            }
            removeOlderThan(p.archive().getParent(), "*.jsa", MAX_AGE);
            Files.move(p.recording(), p.archive(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        } finally {
            discard(p);
        }
    }

    /** Deletes what is left of a recording (failed job, unfinished dump); nothing to do for other plans. */
    static void discard(Plan p) {
        if (p.recording() != null) {
            try {
                Files.deleteIfExists(p.recording());
            } catch (IOException e) {
                // best effort: removed as stale by a later plan
            }
        }
    }

    /** Whether a dump has its header (the JVM writes it last). */
    static boolean finished(Path recording) throws IOException {
        byte[] head = new byte[DYNAMIC_MAGIC.length];
        try (InputStream in = Files.newInputStream(recording, LinkOption.NOFOLLOW_LINKS)) {
            return in.readNBytes(head, 0, head.length) == head.length && java.util.Arrays.equals(head, DYNAMIC_MAGIC);
        }
    }
}
