package org.troika.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * JNA's library search path ({@code jna.platform.library.path}) the way JNA's {@code NativeLibrary} computes it at
 * start-up: the multiarch and standard folders, then the folders of the libraries {@code /sbin/ldconfig -p} lists,
 * the existing ones, each once. JNA starts {@code ldconfig} from every JVM that loads it (~30 ms of CPU per rank);
 * given the path, it does not. {@code bin/troika-rankenv} computes the same in sh. Only where JNA's multiarch name is
 * the machine name plus {@code -linux-gnu} (x86_64, aarch64).
 */
public final class JnaSearchPath {
    /** The system property JNA reads. */
    public static final String PROPERTY = "jna.platform.library.path";

    private JnaSearchPath() {}

    /** This JVM's machine as {@code uname -m} names it when JNA's path rule applies (Linux x86_64, aarch64), else "". */
    public static String machine() {
        if (!System.getProperty("os.name", "").equals("Linux")) {
            return "";
        }
        return switch (System.getProperty("os.arch", "")) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64" -> "aarch64";
            default -> "";
        };
    }

    /**
     * The path for {@code machine} ({@code uname -m}) with the given further folders (pure but for
     * {@code isDirectory}); {@code null} on other machines or when no folder exists.
     */
    public static String join(String machine, Collection<String> more, Predicate<String> isDirectory) {
        if (!machine.equals("x86_64") && !machine.equals("aarch64")) {
            return null;
        }
        String triplet = machine + "-linux-gnu";
        Set<String> dirs = new LinkedHashSet<>(List.of("/usr/lib/" + triplet, "/lib/" + triplet, "/usr/lib64", "/lib64",
                "/usr/lib", "/lib"));
        dirs.addAll(more);
        List<String> existing = new ArrayList<>();
        for (String d : dirs) {
            if (isDirectory.test(d)) {
                existing.add(d);
            }
        }
        return existing.isEmpty() ? null : String.join(":", existing);
    }

    /** The folders of the libraries in {@code ldconfig -p}'s output, in order, each once. */
    public static List<String> ldconfigFolders(String ldconfigOutput) {
        Set<String> dirs = new LinkedHashSet<>();
        for (String line : ldconfigOutput.split("\n")) {
            int arrow = line.indexOf(" => /");
            int slash = line.lastIndexOf('/');
            if (arrow >= 0 && slash > arrow + 4) {
                dirs.add(line.substring(arrow + 4, slash));
            }
        }
        return List.copyOf(dirs);
    }

    /**
     * The folders {@code ld.so.conf} names (the dynamic linker's cache is built from them, so they hold what
     * {@code ldconfig -p} lists), following {@code include} lines and their globs, each once, without starting a
     * process. Unreadable files are skipped. Written for a JVM's first milliseconds (a rank's start-up): plain loops,
     * no regular expressions, streams or lambdas, whose first use costs a cold JVM tens of milliseconds.
     */
    public static List<String> ldSoConfFolders(Path conf) {
        Set<String> dirs = new LinkedHashSet<>();
        readConf(conf, dirs, new LinkedHashSet<>());
        return List.copyOf(dirs);
    }

    private static void readConf(Path conf, Set<String> dirs, Set<Path> seen) {
        if (!seen.add(conf.toAbsolutePath().normalize()) || seen.size() > 256) {
            return;
        }
        String text;
        try {
            text = Files.readString(conf);
        } catch (IOException | RuntimeException e) {
            return;
        }
        for (String raw : text.split("\n")) {
            int hash = raw.indexOf('#');
            String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
            if (line.startsWith("include") && line.length() > 7 && Character.isWhitespace(line.charAt(7))) {
                for (String pattern : words(line.substring(8))) {
                    for (Path p : glob(conf.resolveSibling(pattern))) {
                        readConf(p, dirs, seen);
                    }
                }
            } else if (line.startsWith("/")) {
                dirs.add(words(line.replace('=', ' ').replace(':', ' ').replace(',', ' ')).get(0)); // old "dir=TYPE"
            }
        }
    }

    private static List<String> words(String s) {
        List<String> words = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < s.length() && !Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i > start) {
                words.add(s.substring(start, i));
            }
        }
        return words;
    }

    /** The files a glob ({@code *} and {@code ?}) in the last path element names, sorted (as ldconfig reads them). */
    private static List<Path> glob(Path pattern) {
        Path dir = pattern.getParent();
        String name = pattern.getFileName() == null ? "" : pattern.getFileName().toString();
        List<Path> files = new ArrayList<>();
        if (dir == null || name.indexOf('*') < 0 && name.indexOf('?') < 0) {
            files.add(pattern);
            return files;
        }
        String[] names = dir.toFile().list();
        if (names == null) {
            return files;
        }
        Arrays.sort(names);
        for (String n : names) {
            if (matches(name, 0, n, 0)) {
                files.add(dir.resolve(n));
            }
        }
        return files;
    }

    /** Whether {@code name} from {@code j} matches the glob {@code g} from {@code i}. */
    static boolean matches(String g, int i, String name, int j) {
        if (i == g.length()) {
            return j == name.length();
        }
        char c = g.charAt(i);
        if (c == '*') {
            for (int k = j; k <= name.length(); k++) {
                if (matches(g, i + 1, name, k)) {
                    return true;
                }
            }
            return false;
        }
        return j < name.length() && (c == '?' || c == name.charAt(j)) && matches(g, i + 1, name, j + 1);
    }
}
