package org.troika.launcher.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.ServiceLoader;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The plugins ({@code META-INF/services} providers) of the jars in the distribution's {@code lib/}, listed once at
 * package time ({@code bin/troika-mkcds} runs {@link #main}) in {@code lib/troika.services}, so a start-up does
 * not pay for {@link ServiceLoader}'s scan, which opens every jar on the class path (measured 10-18 ms for the
 * first scan of troika's 17 jars, JVM without CDS).
 *
 * <p>The index names the jars it was made from (name, size, modification time, hashed): when {@code lib/} holds
 * other jars (a plugin dropped in, a jar rebuilt), or there is no index (tests, an IDE), {@link #load} falls back to
 * {@link ServiceLoader}, so the result is the same either way. File format, one entry per line:
 * <pre>
 *   # comment
 *   jars HASH
 *   INTERFACE PROVIDER
 * </pre>
 */
final class ServiceIndex {
    static final String FILE = "troika.services";

    private ServiceIndex() {}

    /** The providers of {@code service}: from the index of {@code lib} when it is current, else ServiceLoader. */
    static <T> List<T> load(Class<T> service, Path lib) {
        List<String> names = lib == null ? null : providers(service.getName(), lib);
        List<T> out = new ArrayList<>();
        if (names == null) {
            ServiceLoader.load(service).forEach(out::add);
            return out;
        }
        ClassLoader loader = ServiceIndex.class.getClassLoader();
        for (String name : names) {
            try {
                out.add(service.cast(Class.forName(name, true, loader).getDeclaredConstructor().newInstance()));
            } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
                throw new IllegalStateException("troika's plugin " + name + " (" + lib.resolve(FILE)
                        + ") cannot be loaded: " + e + "; rebuild the distribution or delete that file", e);
            }
        }
        return out;
    }

    /** The {@code lib/} folder of the running distribution ({@code -Dtroika.home}), or {@code null}. */
    static Path distLib() {
        String home = System.getProperty("troika.home");
        return home == null ? null : Path.of(home, "lib");
    }

    /** Provider class names of {@code service} from a current index of {@code lib}, or {@code null}. */
    static List<String> providers(String service, Path lib) {
        List<String> lines;
        try {
            lines = Files.readAllLines(lib.resolve(FILE), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
        List<String> names = new ArrayList<>();
        boolean current = false;
        for (String line : lines) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int sp = line.indexOf(' ');
            if (sp < 0) {
                return null;
            }
            String key = line.substring(0, sp);
            String value = line.substring(sp + 1);
            if (key.equals("jars")) {
                current = value.equals(jarsHash(lib));
                if (!current) {
                    return null;
                }
            } else if (key.equals(service)) {
                names.add(value);
            }
        }
        return current ? names : null;
    }

    /** A hash of the names, sizes and modification times of {@code lib/*.jar}, in name order. */
    static String jarsHash(Path lib) {
        File[] files = lib.toFile().listFiles();
        if (files == null) {
            return "none";
        }
        Arrays.sort(files);
        long h = 0xcbf29ce484222325L; // FNV-1a, 64 bit
        for (File f : files) {
            if (!f.getName().endsWith(".jar")) {
                continue;
            }
            String s = f.getName() + ' ' + f.length() + ' ' + f.lastModified() + '\n';
            for (int i = 0; i < s.length(); i++) {
                h = (h ^ s.charAt(i)) * 0x100000001b3L;
            }
        }
        return Long.toHexString(h);
    }

    /** The index text for the jars of {@code lib}, providers in class-path order ({@code classpath} lists jars). */
    static String build(Path lib, List<Path> classpath) throws IOException {
        StringBuilder b = new StringBuilder("# troika service index, written by bin/troika-mkcds; ignored when the jars"
                + " in lib/ change\njars ").append(jarsHash(lib)).append('\n');
        for (Path jar : classpath) {
            if (!jar.toString().endsWith(".jar") || !Files.isRegularFile(jar)) {
                continue;
            }
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                List<? extends ZipEntry> entries = zip.stream()
                        .filter(e -> !e.isDirectory() && e.getName().startsWith("META-INF/services/")).toList();
                for (ZipEntry e : entries) {
                    String service = e.getName().substring("META-INF/services/".length());
                    try (InputStream in = zip.getInputStream(e)) {
                        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                            int hash = line.indexOf('#');
                            String name = (hash >= 0 ? line.substring(0, hash) : line).trim();
                            if (!name.isEmpty()) {
                                b.append(service).append(' ').append(name).append('\n');
                            }
                        }
                    }
                }
            }
        }
        return b.toString();
    }

    /** {@code ServiceIndex LIB}: writes {@code LIB/troika.services} for this JVM's class path (atomically). */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ServiceIndex LIB_DIR");
            System.exit(2);
        }
        Path lib = Path.of(args[0]);
        List<Path> cp = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            cp.add(Path.of(e));
        }
        Path tmp = lib.resolve(FILE + ".tmp");
        Files.writeString(tmp, build(lib, cp));
        Files.move(tmp, lib.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
