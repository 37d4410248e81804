package org.troika.mpi.jna;

import com.sun.jna.Platform;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.troika.common.JnaSearchPath;
import org.troika.common.PrivateFiles;

/**
 * Spares a rank JVM two costs of JNA's start-up, before JNA's classes initialise (issue 25.3). Each applies only when
 * the user has not set JNA's property for it; measured in {@code bench/mpi-init.sh}.
 * <ol>
 *   <li>JNA's {@code NativeLibrary} starts {@code /sbin/ldconfig -p} (a process from the JVM) to build its library
 *       search path. The same path is computed here from {@code /etc/ld.so.conf} ({@link JnaSearchPath}) and set
 *       as {@code jna.platform.library.path}.</li>
 *   <li>JNA's {@code Native} extracts its native part ({@code libjnidispatch.so}) from its jar into a new temporary
 *       file in every JVM; naming that file loads {@code SecureRandom} and the security providers (~130 classes).
 *       Instead the library is copied once per JNA build (the key is its checksum, read from the JNA jar on the class
 *       path, so it always matches that JNA) into {@code ~/.cache/troika/jna/KEY/} and JNA loads it from there
 *       ({@code jna.boot.library.path}). The folder must be the user's own, mode 0700, else JNA extracts as
 *       usual.</li>
 * </ol>
 */
final class JnaBoot {
    private static final String BOOT_PATH = "jna.boot.library.path";
    private static boolean done; // guarded by JnaBoot.class

    private JnaBoot() {}

    static synchronized void prepare(Map<String, String> env) {
        if (done) {
            return;
        }
        done = true;
        String machine = JnaSearchPath.machine();
        if (System.getProperty(JnaSearchPath.PROPERTY) == null && !machine.isEmpty()) {
            String path = JnaSearchPath.join(machine, JnaSearchPath.ldSoConfFolders(Path.of("/etc/ld.so.conf")),
                    d -> Files.isDirectory(Path.of(d)));
            if (path != null) {
                System.setProperty(JnaSearchPath.PROPERTY, path);
            }
        }
        if (System.getProperty(BOOT_PATH) == null && System.getProperty("jna.boot.library.name") == null
                && !Boolean.getBoolean("jna.noclasspath") && !machine.isEmpty()) {
            Path cache = PrivateFiles.userCacheDir(env);
            Path dir = cache == null ? null : dispatchLibrary(cache.resolve("jna"));
            if (dir != null) {
                System.setProperty(BOOT_PATH, dir.toString());
            }
        }
    }

    /** The folder holding this JNA's libjnidispatch.so under {@code root}, copied there if needed; null on failure. */
    static Path dispatchLibrary(Path root) {
        String file = System.mapLibraryName("jnidispatch");
        byte[] lib = resource("com/sun/jna/" + Platform.RESOURCE_PREFIX + "/" + file);
        if (lib == null) {
            return null;
        }
        CRC32 crc = new CRC32();
        crc.update(lib);
        Path dir = root.resolve(Long.toHexString(crc.getValue()) + "-" + lib.length);
        Path target = dir.resolve(file);
        try {
            Files.createDirectories(dir, PrivateFiles.dirMode());
            if (!ownedAndPrivate(dir)) {
                return null;
            }
            if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && ownedAndPrivate(target)
                    && Arrays.equals(lib, Files.readAllBytes(target))) {
                return dir;
            }
            // a fresh name per process (no SecureRandom: the folder is the user's own), then one atomic rename
            Path tmp = dir.resolve(file + "." + ProcessHandle.current().pid() + "."
                    + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
            Files.write(tmp, lib);
            Files.setPosixFilePermissions(tmp, PrivateFiles.DIR_MODE);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return dir;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * A resource of JNA's jar: read from the jar file itself when JNA comes from one (a jar: URL connection would load
     * ~40 classes more), else through the class loader; null when absent.
     */
    private static byte[] resource(String name) {
        try {
            java.security.CodeSource source = Platform.class.getProtectionDomain().getCodeSource();
            java.net.URL jar = source == null ? null : source.getLocation();
            if (jar != null && jar.getProtocol().equals("file") && jar.getPath().endsWith(".jar")) {
                try (ZipFile zip = new ZipFile(new java.io.File(jar.toURI()))) {
                    ZipEntry e = zip.getEntry(name);
                    if (e == null) {
                        return null;
                    }
                    try (InputStream in = zip.getInputStream(e)) {
                        return in.readAllBytes();
                    }
                }
            }
            try (InputStream in = Platform.class.getResourceAsStream("/" + name)) {
                return in == null ? null : in.readAllBytes();
            }
        } catch (IOException | java.net.URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    /** Owned by this user and not writable by group or others (the same rule as the CDS cache's). */
    private static boolean ownedAndPrivate(Path p) throws IOException {
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return a.owner().getName().equals(System.getProperty("user.name"))
                && !a.permissions().contains(PosixFilePermission.GROUP_WRITE)
                && !a.permissions().contains(PosixFilePermission.OTHERS_WRITE);
    }
}
