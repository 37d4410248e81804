package org.troika.launcher.timeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.LinkOption;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.troika.common.UsageException;
import org.troika.common.exec.NativeText;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.UserText;
import org.troika.wire.Nonces;

/**
 * What happened when in one {@code troika run}: planning, task-service starts per host, mpirun, generations with their
 * hosts and world size, host changes, failures, commits, hang detections, teardown. Recorded in memory while the job
 * runs and written when it is closed: {@code FILE} as Chrome trace-event JSON ({@link TimelineJson}; opens in
 * Perfetto and chrome://tracing) and beside it {@code FILE} with {@code .html} as the extension, a self-contained page
 * ({@link TimelineHtml}: one row per host, generations as bands, failures marked).
 *
 * <p>Thread-safe: events come from the driver loop, relay liveness threads, the watchdog and signal handlers. A
 * disabled timeline ({@link #off()}) records nothing and costs one branch per call.
 */
public final class Timeline implements AutoCloseable {
    /** Longest file name (bytes) Linux file systems take. */
    static final int MAX_NAME_BYTES = 255;

    /** The kinds of event; each has its colour in the HTML page and its category in the trace. */
    public enum Kind {
        PLAN("plan", "#9e9e9e"),
        SERVICE("task service", "#90a4ae"),
        MPIRUN("mpirun", "#7e57c2"),
        GENERATION("generation", "#42a5f5"),
        HOST("hosts", "#2e7d32"),
        BLACKLIST("blacklist", "#212121"),
        FAILURE("failure", "#e53935"),
        COMMIT("commit", "#43a047"),
        HANG("hang", "#fb8c00"),
        TEARDOWN("teardown", "#6d4c41");

        private final String label;
        private final String color;

        Kind(String label, String color) {
            this.label = label;
            this.color = color;
        }

        public String label() {
            return label;
        }

        /** CSS colour of marks of this kind. */
        public String color() {
            return color;
        }
    }

    /**
     * One event.
     *
     * @param kind its kind
     * @param name what it says ({@code generation 2}, {@code rank 3 exit 137})
     * @param host the host row it belongs to, or {@code null} for the launcher's row
     * @param startMicros start, in microseconds since the timeline began
     * @param durationMicros length of a span, or {@code -1} for an instant
     * @param args details (shown in tooltips and in the trace viewer)
     */
    public record Event(Kind kind, String name, String host, long startMicros, long durationMicros,
            Map<String, Object> args) {
        public Event {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(name, "name");
            args = args == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(args));
        }

        public boolean instant() {
            return durationMicros < 0;
        }

        public long endMicros() {
            return instant() ? startMicros : startMicros + durationMicros;
        }
    }

    /** An open span; {@link #end} records it (once). */
    public final class Span {
        private final Kind kind;
        private final String name;
        private final String host;
        private final long start;
        private final Map<String, Object> args;
        private boolean ended;

        private Span(Kind kind, String name, String host, long start, Map<String, Object> args) {
            this.kind = kind;
            this.name = name;
            this.host = host;
            this.start = start;
            this.args = args;
        }

        public void end() {
            end(Map.of());
        }

        /** Ends the span with extra details; later calls do nothing. */
        public synchronized void end(Map<String, Object> more) {
            if (ended || !enabled) {
                return;
            }
            ended = true;
            Map<String, Object> all = new LinkedHashMap<>(args);
            all.putAll(more);
            add(new Event(kind, name, host, start, Math.max(0, nowMicros() - start), all));
        }
    }

    private final boolean enabled;
    private final Path file;
    private final long startNanos = System.nanoTime();
    private final long startEpochMillis = System.currentTimeMillis();
    private final List<Event> events = new ArrayList<>();
    /** Host rows in order of first appearance (a set: a 10,000-host plan adds each row once, not by a scan). */
    private final java.util.LinkedHashSet<String> hostOrder = new java.util.LinkedHashSet<>();
    private String title = "troika job";
    private boolean written;

    private Timeline(boolean enabled, Path file) {
        this.enabled = enabled;
        this.file = file;
    }

    /** A timeline that records nothing. */
    public static Timeline off() {
        return new Timeline(false, null);
    }

    /** A timeline written to {@code jsonFile} (and its {@code .html} sibling) when closed. */
    public static Timeline to(Path jsonFile) {
        return new Timeline(true, Objects.requireNonNull(jsonFile, "jsonFile"));
    }

    /** A timeline kept in memory only (tests, and callers that write it themselves). */
    public static Timeline inMemory() {
        return new Timeline(true, null);
    }

    /**
     * The JSON file of the timeline a run with these options keeps: {@code --timeline FILE}, else for elastic jobs
     * {@code DIR/timeline.json} when {@code --output-filename DIR} is given, else none ({@code null}).
     */
    public static Path fileFor(Path timelineOption, boolean elastic, Path outputDir) {
        if (timelineOption != null) {
            return timelineOption;
        }
        return elastic && outputDir != null ? outputDir.resolve("timeline.json") : null;
    }

    /** The HTML page written beside {@code jsonFile}: the same name with {@code .html} instead of {@code .json}. */
    public static Path htmlFileFor(Path jsonFile) {
        String n = jsonFile.getFileName().toString();
        String base = n.endsWith(".json") ? n.substring(0, n.length() - 5) : n;
        return jsonFile.resolveSibling(base + ".html");
    }

    public boolean enabled() {
        return enabled;
    }

    /** Names the job in the page title (e.g. the command). */
    public synchronized void title(String t) {
        title = Objects.requireNonNull(t, "title");
    }

    public long nowMicros() {
        return (System.nanoTime() - startNanos) / 1000L;
    }

    /** Opens a span now. */
    public Span begin(Kind kind, String name, String host, Map<String, Object> args) {
        return new Span(kind, name, host, nowMicros(), args == null ? Map.of() : new LinkedHashMap<>(args));
    }

    /** Records an instant now. */
    public void instant(Kind kind, String name, String host, Map<String, Object> args) {
        if (enabled) {
            add(new Event(kind, name, host, nowMicros(), -1, args));
        }
    }

    /** Records an instant at a given time (microseconds since the timeline began). */
    public void instantAt(Kind kind, String name, String host, long micros, Map<String, Object> args) {
        if (enabled) {
            add(new Event(kind, name, host, micros, -1, args));
        }
    }

    /** Records a finished span. */
    public void span(Kind kind, String name, String host, long startMicros, long endMicros, Map<String, Object> args) {
        if (enabled) {
            add(new Event(kind, name, host, startMicros, Math.max(0, endMicros - startMicros), args));
        }
    }

    /** Makes {@code host} a row now, so rows follow the order hosts were planned in. */
    public synchronized void host(String host) {
        if (host != null) {
            hostOrder.add(host);
        }
    }

    private synchronized void add(Event e) {
        events.add(e);
        host(e.host());
    }

    /** The events so far, ordered by start. */
    public synchronized List<Event> events() {
        List<Event> copy = new ArrayList<>(events);
        copy.sort(java.util.Comparator.comparingLong(Event::startMicros));
        return copy;
    }

    /** Host rows in order of first appearance. */
    public synchronized List<String> hosts() {
        return List.copyOf(hostOrder);
    }

    public synchronized String title() {
        return title;
    }

    public long startEpochMillis() {
        return startEpochMillis;
    }

    /**
     * Writes the JSON file and the HTML page (each to a temporary file first, then moved into place). Idempotent.
     *
     * @throws UncheckedIOException when a file cannot be written
     */
    @Override
    public void close() {
        synchronized (this) {
            if (!enabled || file == null || written) {
                return;
            }
            written = true;
        }
        write(file, TimelineJson.render(this));
        write(htmlFileFor(file), TimelineHtml.render(this));
    }

    /**
     * Writes {@code text} to {@code target} the safe way: into a new file beside it (created with {@code O_EXCL}, so
     * never through a link, and with the user's umask), then renamed over {@code target} (which replaces a link there
     * instead of following it). The new file is removed when anything fails: no {@code .tmp} is left behind.
     */
    private static void write(Path target, String text) {
        Path tmp = null;
        try {
            Path dir = target.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            // a random name from the kernel's CSPRNG (Nonces: no SecureRandom, whose providers' set-up costs ~14 ms)
            tmp = dir.resolve(".timeline-" + Long.toUnsignedString(Nonces.randomLong(), 36) + ".tmp");
            try (SeekableByteChannel ch = Files.newByteChannel(tmp, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            tmp = null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the timeline " + UserText.quote(target.toString()) + ": "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // nothing more to do: the warning names the target
                }
            }
        }
    }

    /**
     * Checks, before anything starts, that the timeline can be written to {@code name} and its page: a file name
     * (not a folder), names the file system takes, each an ordinary file or absent, in a folder that exists (or, with
     * {@code folderMayBeMade}, can be made under one that does) and is writable. Problems are
     * {@link UsageException}s naming {@code option}.
     *
     * @return the path
     */
    public static Path checkTarget(String name, String option, boolean folderMayBeMade) {
        String shown = option + " " + UserText.quote(name);
        if (name.isBlank() || name.endsWith("/")) {
            throw new UsageException(shown + " is not a file name; give e.g. " + option + " job.json");
        }
        Path json = Path.of(name);
        for (Path p : List.of(json, htmlFileFor(json))) {
            int bytes = NativeText.encode(p.getFileName().toString()).length;
            if (bytes > MAX_NAME_BYTES) {
                throw new UsageException(shown + ": the file name " + UserText.quote(p.getFileName().toString())
                        + " has " + bytes + " bytes; file systems take at most " + MAX_NAME_BYTES + "; give a shorter one");
            }
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(p) && !Files.isRegularFile(p,
                    LinkOption.NOFOLLOW_LINKS)) {
                throw new UsageException(shown + ": " + UserText.quote(p.toString()) + " is " + FileSource.kindOf(p, LinkOption.NOFOLLOW_LINKS)
                        + ", not a regular file; give another name");
            }
        }
        Path dir = json.toAbsolutePath().getParent();
        if (!folderMayBeMade && !Files.isDirectory(dir)) {
            throw new UsageException(shown + ": the folder " + UserText.quote(dir.toString())
                    + " does not exist; create it first");
        }
        while (dir != null && !Files.exists(dir)) {
            dir = dir.getParent();
        }
        if (dir == null || !Files.isDirectory(dir)) {
            throw new UsageException(shown + ": " + UserText.quote(String.valueOf(dir)) + " is not a folder");
        }
        if (!Files.isWritable(dir)) {
            throw new UsageException(shown + ": the folder " + UserText.quote(dir.toString())
                    + " is not writable; give a file in a folder you can write");
        }
        return json;
    }
}
