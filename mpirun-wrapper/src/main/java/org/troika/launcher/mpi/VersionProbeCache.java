package org.troika.launcher.mpi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.troika.common.PrivateFiles;
import org.troika.common.exec.CommandRunner;

/**
 * Remembers what {@code <mpirun> --version} printed, so a launch does not pay for the probe (~50 ms) every time.
 * The key is the launcher's real path, size and modification time, so installing another MPI (or switching the
 * Debian {@code mpirun} alternative) invalidates it. Only successful probes are cached; anything else is passed
 * through to the wrapped runner. Entries live in {@code $XDG_CACHE_HOME/troika} (default {@code ~/.cache/troika}),
 * owner-only; when that folder cannot be used the cache is simply skipped.
 */
public final class VersionProbeCache implements CommandRunner {
    private final CommandRunner delegate;
    private final Path dir;
    private final Map<String, String> env;

    public VersionProbeCache(CommandRunner delegate, Path dir, Map<String, String> env) {
        this.delegate = delegate;
        this.dir = dir;
        this.env = env;
    }

    /** The default cache folder for {@code env}, or {@code null} when neither XDG_CACHE_HOME nor HOME is set. */
    public static Path defaultDir(Map<String, String> env) {
        return org.troika.common.PrivateFiles.userCacheDir(env);
    }

    @Override
    public ProbeResult run(List<String> argv, Duration timeout) {
        if (dir == null || argv.size() != 2 || !argv.get(1).equals("--version")) {
            return delegate.run(argv, timeout);
        }
        String key = key(argv.get(0));
        if (key == null) {
            return delegate.run(argv, timeout);
        }
        Path file = dir.resolve("version-" + Integer.toHexString(key.hashCode()));
        String cached = read(file, key);
        if (cached != null) {
            return new ProbeResult(0, cached);
        }
        ProbeResult r = delegate.run(argv, timeout);
        if (r.ok()) {
            write(file, key + "\n" + r.output());
        }
        return r;
    }

    /** {@code realpath size mtime} of the command as found on PATH, or {@code null} when it is not a file. */
    private String key(String command) {
        Path p = resolve(command);
        if (p == null) {
            return null;
        }
        try {
            Path real = p.toRealPath();
            return real + " " + Files.size(real) + " " + Files.getLastModifiedTime(real).toMillis();
        } catch (IOException e) {
            return null;
        }
    }

    private Path resolve(String command) {
        if (command.contains("/")) {
            return Files.isRegularFile(Path.of(command)) ? Path.of(command) : null;
        }
        for (String d : env.getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty()) {
                Path p = Path.of(d, command);
                if (Files.isExecutable(p) && Files.isRegularFile(p)) {
                    return p;
                }
            }
        }
        return null;
    }

    private static String read(Path file, String key) {
        try {
            String s = Files.readString(file, StandardCharsets.UTF_8);
            int nl = s.indexOf('\n');
            return nl > 0 && s.substring(0, nl).equals(key) ? s.substring(nl + 1) : null;
        } catch (IOException e) {
            return null;
        }
    }

    private void write(Path file, String content) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PrivateFiles.dirMode());
            }
            Path tmp = dir.resolve(file.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()));
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | UnsupportedOperationException e) {
            // the cache is an optimisation: a read-only home or an odd file system just means no cache
        }
    }
}
