package org.troika.launcher.cli;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.ParseException;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.events.CollectionEndEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.launcher.options.RunOption;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.FileSource;

/**
 * {@code troika run --config-file FILE}: Horovod's YAML config file ({@code horovodrun --config-file}), mapped to
 * what has a meaning here.
 *
 * <p>Each key becomes a {@code troika run} flag or an environment variable for the ranks (the table in
 * {@link #map}); a key without a meaning here gives one warning line. The flags go before the user's arguments, so
 * they are checked by the same parser as typed ones, and a flag the command line gives itself wins: the file's is
 * dropped (precedence: command line, then the caller's environment for the rank variables, then the file). A flag
 * this troika does not have (an older build) turns its key into a warning too, so wiring a new flag needs no change
 * here.
 *
 * <p>Loading is SnakeYAML Engine's (YAML 1.2, safe: plain maps, lists and scalars, no types from tags, no
 * duplicate keys, no environment substitution). Booleans may also be YAML 1.1's {@code yes/no/on/off}, which
 * Horovod's loader reads as booleans. Malformed YAML, a wrong type or a value out of range is a
 * {@link UsageException} naming the file and the key.
 */
final class ConfigFile {
    private static final Set<String> SECTIONS = Set.of("params", "autotune", "timeline", "stall_check",
            "library_options", "logging");
    private static final List<String> LOG_LEVELS = List.of("trace", "debug", "info", "warning", "error", "fatal");
    private static final int MAX_FUSION_MB = 1024;
    private static final int MAX_SECONDS = 24 * 3600;
    /** Largest config file, comments included (Horovod's are a few hundred bytes). */
    static final int MAX_BYTES = 1 << 20;
    /** Deepest nesting of maps and lists (Horovod's config has 2 levels). */
    static final int MAX_DEPTH = 32;

    private ConfigFile() {}

    /** One option from the file ({@code value} {@code null} for a flag), and the key it came from. */
    record Flag(String key, RunOption<?> option, String value) {
        /** {@code --name=value} as one word, so a value starting with {@code -} is never read as an option. */
        List<String> words() {
            String name = "--" + option.longName();
            return value == null ? List.of(name) : List.of(name + "=" + value);
        }
    }

    /** The file's mapping: flags for {@code troika run}, variables for the ranks, and warnings. */
    record Mapped(List<Flag> flags, Map<String, String> env, List<String> warnings) {
        Mapped {
            flags = List.copyOf(flags);
            env = Map.copyOf(env);
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * The arguments with the config file applied, the environment additions for the ranks, and the warnings.
     *
     * @param args the arguments as given (returned unchanged, with no warnings, when there is no {@code --config-file})
     * @param file the config file name, or {@code null}
     */
    record Applied(List<String> args, Map<String, String> env, List<String> warnings, String file,
            Map<String, String> keyOfFlag) {
        Applied {
            args = List.copyOf(args);
            env = Map.copyOf(env);
            warnings = List.copyOf(warnings);
            keyOfFlag = Map.copyOf(keyOfFlag);
        }

        /** The caller's environment plus the file's variables; a variable the caller set wins. */
        Map<String, String> environment(Map<String, String> callerEnv) {
            Map<String, String> out = new LinkedHashMap<>(env);
            out.putAll(callerEnv);
            return out;
        }

        /**
         * A parse error about a flag that came from the file, told in the file's words
         * ({@code config file F: timeline.filename: ...}); other errors unchanged.
         */
        UsageException explain(UsageException e) {
            for (Map.Entry<String, String> flag : keyOfFlag.entrySet()) {
                if (e.getMessage().startsWith(flag.getKey())) {
                    return new UsageException("config file " + file + ": " + flag.getValue() + ": " + e.getMessage());
                }
            }
            return e;
        }
    }

    /**
     * Applies {@code --config-file} when {@code args} (troika run's, before the command) give it.
     *
     * @param rows the options {@code troika run} has (a file option not among them becomes a warning)
     */
    static Applied apply(List<String> args, List<RunOption<?>> rows, FileSource files) {
        CommandLine cl;
        try {
            cl = new DefaultParser().parse(RunCommandLine.options(rows), args.toArray(String[]::new), true);
        } catch (ParseException e) {
            return new Applied(args, Map.of(), List.of(), null, Map.of()); // the real parse reports it
        }
        if (!cl.hasOption(RunOptionTable.CONFIG_FILE.key())) {
            return new Applied(args, Map.of(), List.of(), null, Map.of());
        }
        String file = cl.getOptionValue(RunOptionTable.CONFIG_FILE.key());
        Mapped m = map(file, load(file, files));
        List<String> warnings = new ArrayList<>(m.warnings());
        List<String> fileFlags = new ArrayList<>();
        Map<String, String> keyOfFlag = new LinkedHashMap<>();
        for (Flag f : m.flags()) {
            String name = "--" + f.option().longName();
            if (!rows.contains(f.option())) {
                warnings.add(file + ": " + f.key() + " needs " + name + ", which this troika does not have; ignored");
            } else if (!cl.hasOption(f.option().key())) { // the command line wins
                fileFlags.addAll(f.words());
                keyOfFlag.put(name, f.key());
            }
        }
        List<String> merged = new ArrayList<>(fileFlags);
        merged.addAll(args);
        return new Applied(merged, m.env(), warnings, file, keyOfFlag);
    }

    /**
     * Reads and parses the file: a mapping, or an empty one for an empty file. Bounded before SnakeYAML sees a byte:
     * at most {@value #MAX_BYTES} bytes (comments included), then an event pass (SnakeYAML's parser is a state
     * machine, its composer recursive) refuses nesting deeper than {@value #MAX_DEPTH}; SnakeYAML's own limits are
     * set: no alias of a map or list (so neither self-reference nor "billion laughs"), no recursive keys, the code
     * point limit, no duplicate keys.
     */
    static Map<?, ?> load(String file, FileSource files) {
        String text = files.readText("config file " + file, Path.of(file), MAX_BYTES, "config files",
                "check the path given to --config-file");
        LoadSettings settings = LoadSettings.builder().setLabel(file).setAllowDuplicateKeys(false)
                .setMaxAliasesForCollections(0).setAllowRecursiveKeys(false).setCodePointLimit(MAX_BYTES)
                .setUseMarks(true).setBufferSize(MAX_BYTES + 1).build();
        Object doc;
        try {
            int depth = 0;
            for (Iterator<Event> events = new Parse(settings).parseString(text).iterator(); events.hasNext(); ) {
                Event e = events.next();
                if (e instanceof CollectionStartEvent && ++depth > MAX_DEPTH) {
                    String where = e.getStartMark().map(mk -> " at line " + (mk.getLine() + 1)).orElse("");
                    throw new UsageException("config file " + file + " nests maps and lists more than " + MAX_DEPTH
                            + " levels deep" + where + "; Horovod's config needs 2");
                } else if (e instanceof CollectionEndEvent) {
                    depth--;
                }
            }
            doc = new Load(settings).loadFromString(text);
        } catch (MarkedYamlEngineException e) {
            String where = e.getProblemMark().map(mk -> " at line " + (mk.getLine() + 1) + ", column "
                    + (mk.getColumn() + 1)).orElse("");
            throw new UsageException("config file " + file + " is not valid YAML" + where + ": " + oneLine(e.getProblem())
                    + "; fix the file");
        } catch (YamlEngineException e) {
            throw new UsageException("config file " + file + " is not valid YAML: " + oneLine(e.getMessage()) + "; fix the file");
        }
        if (doc == null) {
            return Map.of();
        }
        if (!(doc instanceof Map<?, ?> map)) {
            throw new UsageException("config file " + file + " must be a YAML mapping of sections (params, timeline, ...),"
                    + " not a " + kind(doc));
        }
        return map;
    }

    /**
     * Maps a parsed Horovod config to troika. Pure.
     *
     * <table>
     *   <caption>Keys with a meaning here</caption>
     *   <tr><th>key</th><th>becomes</th></tr>
     *   <tr><td>{@code timeline.filename}</td><td>{@code --timeline FILE}</td></tr>
     *   <tr><td>{@code stall_check.enabled: false}</td><td>{@code --hang-timeout 0 --hang-warning 0}</td></tr>
     *   <tr><td>{@code stall_check.warning_time_seconds}</td><td>{@code --hang-warning S}</td></tr>
     *   <tr><td>{@code stall_check.shutdown_time_seconds}</td><td>{@code --hang-timeout S} (0 = off, as in
     *       Horovod)</td></tr>
     *   <tr><td>{@code params.fusion_threshold_mb}</td><td>{@code TROIKA_FUSION_THRESHOLD} = MB × 1024², the
     *       ranks' default {@code FusionBuffer} size</td></tr>
     *   <tr><td>{@code library_options.mpi_threads_disable}</td><td>{@code TROIKA_MPI_THREAD_LEVEL}: {@code single}
     *       when true, {@code multiple} (Horovod's default) when false, the level {@code Mpi.init()} asks
     *       for</td></tr>
     *   <tr><td>{@code logging.level}</td><td>{@code trace}/{@code debug}: {@code --verbose}; {@code info} and
     *       above: troika's default</td></tr>
     * </table>
     * Every other Horovod key (autotune, cycle time, response cache, hierarchical collectives, mark_cycles, NCCL,
     * Gloo and CCL options, hide_timestamp) and every unknown key or section gives one warning.
     */
    static Mapped map(String file, Map<?, ?> doc) {
        Builder b = new Builder(file);
        for (Map.Entry<?, ?> section : doc.entrySet()) {
            String name = String.valueOf(section.getKey());
            if (!SECTIONS.contains(name)) {
                b.warn(name, "is not a section of Horovod's config file (params, autotune, timeline, stall_check,"
                        + " library_options, logging)");
                continue;
            }
            if (section.getValue() == null) {
                continue;
            }
            if (!(section.getValue() instanceof Map<?, ?> keys)) {
                throw new UsageException("config file " + file + ": " + name + " must be a mapping of keys, not a "
                        + kind(section.getValue()));
            }
            for (Map.Entry<?, ?> e : keys.entrySet()) {
                b.key(name, String.valueOf(e.getKey()), e.getValue());
            }
        }
        b.stallCheck();
        return new Mapped(b.flags, b.env, b.warnings);
    }

    /** Collects the mapping of one file. */
    private static final class Builder {
        private final String file;
        private final List<Flag> flags = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private final List<String> warnings = new ArrayList<>();
        private Boolean stallEnabled;
        private Integer stallWarning;
        private Integer stallShutdown;

        Builder(String file) {
            this.file = file;
        }

        void key(String section, String key, Object value) {
            String k = section + "." + key;
            switch (k) {
                case "timeline.filename" -> {
                    String f = string(k, value);
                    flag(k, RunOptionTable.TIMELINE, f);
                }
                case "stall_check.enabled" -> stallEnabled = bool(k, value);
                case "stall_check.warning_time_seconds" -> stallWarning = seconds(k, value);
                case "stall_check.shutdown_time_seconds" -> stallShutdown = seconds(k, value);
                case "params.fusion_threshold_mb" -> {
                    BigDecimal mb = number(k, value, MAX_FUSION_MB);
                    long bytes = mb.multiply(BigDecimal.valueOf(1024L * 1024)).setScale(0, java.math.RoundingMode.HALF_UP)
                            .longValueExact();
                    env.put(TroikaEnv.FUSION_THRESHOLD, Long.toString(bytes));
                }
                case "library_options.mpi_threads_disable" ->
                        env.put(TroikaEnv.MPI_THREAD_LEVEL, bool(k, value) ? "single" : "multiple");
                case "logging.level" -> {
                    String level = string(k, value).toLowerCase(Locale.ROOT);
                    if (!LOG_LEVELS.contains(level)) {
                        throw bad(k, value, "one of " + String.join(", ", LOG_LEVELS));
                    }
                    if (level.equals("trace") || level.equals("debug")) {
                        flags.add(new Flag(k, RunOptionTable.VERBOSE, null));
                    }
                }
                // autotune, cycle time, response cache, hierarchical collectives, timeline.mark_cycles, NCCL/Gloo/
                // CCL options, logging.hide_timestamp, ...: tuning of Horovod's core, which no troika rank runs
                default -> warn(k, "has no meaning in troika");
            }
        }

        /** Horovod's stall check, as troika's hang watchdog. */
        void stallCheck() {
            if (Boolean.FALSE.equals(stallEnabled)) {
                flag("stall_check.enabled", RunOptionTable.HANG_TIMEOUT, "0");
                flag("stall_check.enabled", RunOptionTable.HANG_WARNING, "0");
                if (stallWarning != null) {
                    warn("stall_check.warning_time_seconds", "is ignored: stall_check.enabled is false");
                }
                if (stallShutdown != null) {
                    warn("stall_check.shutdown_time_seconds", "is ignored: stall_check.enabled is false");
                }
                return;
            }
            if (stallWarning != null) {
                flag("stall_check.warning_time_seconds", RunOptionTable.HANG_WARNING, Integer.toString(stallWarning));
            }
            if (stallShutdown != null) {
                flag("stall_check.shutdown_time_seconds", RunOptionTable.HANG_TIMEOUT, Integer.toString(stallShutdown));
            }
        }

        void flag(String key, RunOption<?> flag, String value) {
            flags.add(new Flag(key, flag, value));
        }

        void warn(String key, String why) {
            warnings.add(file + ": " + key + " " + why + "; ignored");
        }

        String string(String key, Object v) {
            if (!(v instanceof String s) || s.isBlank()) {
                throw bad(key, v, "a non-empty string");
            }
            return s;
        }

        boolean bool(String key, Object v) {
            if (v instanceof Boolean b) {
                return b;
            }
            if (v instanceof String s) {
                switch (s.toLowerCase(Locale.ROOT)) {
                    case "true", "yes", "on" -> {
                        return true;
                    }
                    case "false", "no", "off" -> {
                        return false;
                    }
                    default -> { }
                }
            }
            throw bad(key, v, "true or false");
        }

        int seconds(String key, Object v) {
            return number(key, v, MAX_SECONDS).setScale(0, java.math.RoundingMode.UP).intValueExact();
        }

        BigDecimal number(String key, Object v, int max) {
            BigDecimal n;
            if (v instanceof Number num && !(v instanceof Double d && (d.isNaN() || d.isInfinite()))) {
                n = new BigDecimal(num.toString());
            } else {
                throw bad(key, v, "a number from 0 to " + max);
            }
            if (n.signum() < 0 || n.compareTo(BigDecimal.valueOf(max)) > 0) {
                throw bad(key, v, "a number from 0 to " + max);
            }
            return n;
        }

        UsageException bad(String key, Object v, String expected) {
            return new UsageException("config file " + file + ": " + key + " must be " + expected + ", got "
                    + (v instanceof String ? "'" + oneLine((String) v) + "'" : kind(v) + " " + oneLine(String.valueOf(v))));
        }
    }

    private static String kind(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Map) {
            return "mapping";
        }
        if (v instanceof List) {
            return "list";
        }
        if (v instanceof Boolean) {
            return "boolean";
        }
        if (v instanceof Number) {
            return "number";
        }
        return "string";
    }

    private static String oneLine(String s) {
        String t = s == null ? "" : s.replaceAll("\\s+", " ").strip();
        return t.length() > 120 ? t.substring(0, 117) + "..." : t;
    }
}
