package org.troika.mpi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.troika.common.exec.NativeText;

/**
 * What {@link Communicator#spawn} starts: {@code count} processes of one command, placed and set up by {@code info}
 * ({@code MPI_Info} keys the launcher understands, e.g. Open MPI 5's {@code PMIX_ADD_HOST}, {@code host},
 * {@code PMIX_ENVAR}).
 *
 * <p>The command and its arguments are bytes, passed to MPI exactly (no charset in between): a process started by
 * {@code mpirun} with arguments in any encoding can start more of itself with the same ones. {@link #of} and the info
 * keys and values are strings in {@link NativeText}'s lossless form (what {@code NativeText.environment()} and
 * {@code NativeText.arguments} give), turned back into the bytes they came from.
 *
 * @param argv the program (first) and its arguments; none may hold a NUL byte
 * @param count how many processes to start, at least 1
 * @param info the info keys and values, in order (an empty map is {@code MPI_INFO_NULL})
 */
public record Spawn(List<byte[]> argv, int count, Map<String, String> info) {
    public Spawn {
        Objects.requireNonNull(argv, "argv");
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("nothing to spawn: argv is empty");
        }
        List<byte[]> copy = new ArrayList<>();
        for (byte[] a : argv) {
            for (byte b : Objects.requireNonNull(a, "argv element")) {
                if (b == 0) {
                    throw new IllegalArgumentException("a spawned command's word cannot hold a NUL byte");
                }
            }
            copy.add(a.clone());
        }
        argv = List.copyOf(copy);
        if (count < 1) {
            throw new IllegalArgumentException("spawn at least one process, not " + count);
        }
        Map<String, String> kept = new LinkedHashMap<>();
        Objects.requireNonNull(info, "info").forEach((k, v) -> {
            if (k.isEmpty() || k.indexOf('\0') >= 0 || v.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("bad info entry '" + k + "': keys are not empty, neither holds NUL");
            }
            kept.put(k, v);
        });
        info = java.util.Collections.unmodifiableMap(kept);
    }

    /** {@code count} processes of {@code argv} ({@link NativeText}'s form) with {@code info}. */
    public static Spawn of(List<String> argv, int count, Map<String, String> info) {
        return new Spawn(argv.stream().map(NativeText::encode).toList(), count, info);
    }

    /** The same spawn with one more info entry (replacing an earlier value of {@code key}). */
    public Spawn withInfo(String key, String value) {
        Map<String, String> m = new LinkedHashMap<>(info);
        m.put(key, value);
        return new Spawn(argv, count, m);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Spawn s) || s.count != count || !s.info.equals(info) || s.argv.size() != argv.size()) {
            return false;
        }
        for (int i = 0; i < argv.size(); i++) {
            if (!java.util.Arrays.equals(argv.get(i), s.argv.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(count, info);
        for (byte[] a : argv) {
            h = 31 * h + java.util.Arrays.hashCode(a);
        }
        return h;
    }

    @Override
    public String toString() {
        List<String> words = argv.stream().map(NativeText::decode).toList();
        return "Spawn" + words + " x" + count + " " + info;
    }
}
