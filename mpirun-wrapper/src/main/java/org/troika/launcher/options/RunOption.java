package org.troika.launcher.options;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.troika.launcher.spi.FileSource;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.Setting;
import org.troika.launcher.spi.SettingPath;

/**
 * One option of {@code troika run}: its names, argument, help, parser and where its value lands in
 * {@link RunSettings}. The command-line parser, {@code --help}, the config-file mapping and the README's flag table
 * all come from these rows ({@link RunOptionTable}). As a {@link Setting} a row also sets its value in code:
 * {@code settings.with(RunOptionTable.NP, 4)}.
 *
 * <p>Range rules are not here: the settings' records check every value, whoever sets it.
 *
 * @param <T> the parsed value's type
 */
public final class RunOption<T> implements Setting<T> {
    /** Turns what was given into the value; throws {@link org.troika.common.UsageException} for bad input. */
    @FunctionalInterface
    public interface Parser<T> {
        T parse(Given given);
    }

    /** How a value lands when it is more than one component ({@code -H}: the hosts and their source). */
    @FunctionalInterface
    public interface Landing<T> {
        RunSettings land(RunSettings settings, T value);
    }

    /**
     * One option as given.
     *
     * @param shown the name error messages use
     * @param values its values (one per argument word; none for a flag)
     * @param files reads the files the option names, or {@code null} to check the syntax only and touch no file
     */
    public record Given(String shown, List<String> values, FileSource files) {
        public Given {
            values = List.copyOf(values);
        }

        /** The first value. */
        public String value() {
            return values.get(0);
        }
    }

    private final List<String> names;
    private final String arg;
    private final String help;
    private final String doc;
    private final Parser<T> parser;
    private final Landing<T> landing;
    private final String target;
    private final String choice;
    private final boolean repeatable;
    private final boolean adds;
    private final boolean elasticOnly;

    private RunOption(Draft d, Parser<T> parser, Landing<T> landing, String target) {
        this.names = List.copyOf(d.names);
        this.arg = d.arg;
        this.help = Objects.requireNonNull(d.help, "help");
        this.doc = d.doc != null ? d.doc : d.help;
        this.parser = parser;
        this.landing = landing;
        this.target = target;
        this.choice = d.choice != null ? d.choice : target;
        this.repeatable = d.repeatable;
        this.adds = d.adds;
        this.elasticOnly = d.elasticOnly;
    }

    /** Starts a row: {@code -x} names are short (one dash), {@code --xyz} long; the first is shown in messages. */
    public static Draft named(String... names) {
        return new Draft(List.of(names));
    }

    /** The names as written ({@code -np}, {@code --num-proc}). */
    public List<String> names() {
        return names;
    }

    /** The short name without its dash, or {@code null}. */
    public String shortName() {
        return names.stream().filter(n -> !n.startsWith("--")).map(n -> n.substring(1)).findFirst().orElse(null);
    }

    /** The long name without its dashes, or {@code null}. */
    public String longName() {
        return names.stream().filter(n -> n.startsWith("--")).map(n -> n.substring(2)).findFirst().orElse(null);
    }

    /** The long name if there is one, else the short: how the parser knows the option. */
    public String key() {
        return longName() != null ? longName() : shortName();
    }

    /** The name shown in messages: the first. */
    public String shown() {
        return names.get(0);
    }

    /** The argument's name ({@code N}, {@code MIN MAX}), or {@code null} for a flag. */
    public String arg() {
        return arg;
    }

    /** How many words the argument takes (0 for a flag). */
    public int arity() {
        return arg == null ? 0 : arg.split(" ").length;
    }

    /** One line for {@code --help}. */
    public String help() {
        return help;
    }

    /** The README's text (Markdown): the help unless more is said there. */
    public String doc() {
        return doc;
    }

    /** Where the value lands ({@code elastic.minNp}), or {@code null} for an option read before parsing. */
    public String target() {
        return target;
    }

    /** Options with the same choice cannot be combined (by default: those landing in the same place). */
    public String choice() {
        return choice;
    }

    /** Whether the option may be given more than once. */
    public boolean repeatable() {
        return repeatable;
    }

    /** Whether its values add to a list that other options fill too (so it combines with them). */
    public boolean adds() {
        return adds;
    }

    /** Whether the option needs an elastic job. */
    public boolean elasticOnly() {
        return elasticOnly;
    }

    /** The value of what was given (for a flag: its constant). */
    public T parse(Given given) {
        return parser.parse(given);
    }

    /**
     * Parses {@code given} and lands the value (an option that {@link #adds()} adds it to the list); a parser that
     * gives {@code null} (a file not read in a syntax check) lands nothing.
     */
    @SuppressWarnings("unchecked")
    public RunSettings land(RunSettings settings, Given given) {
        T value = parse(given);
        if (value == null) {
            return settings;
        }
        if (adds) {
            List<Object> all = new ArrayList<>((List<Object>) SettingPath.of(target).get(settings));
            all.addAll((List<Object>) value);
            return SettingPath.of(target).set(settings, all);
        }
        return set(settings, value);
    }

    /** A copy of {@code settings} with this option's value set to {@code value} (a list replaced, not added to). */
    @Override
    public RunSettings set(RunSettings settings, T value) {
        if (landing != null) {
            return landing.land(settings, value);
        }
        return target == null ? settings : SettingPath.of(target).set(settings, value);
    }

    @Override
    public String toString() {
        return String.join(", ", names);
    }

    /** A row being written: names, argument, help and the modifiers; {@link #parsedBy} or a flag's value ends it. */
    public static final class Draft {
        private final List<String> names;
        private String arg;
        private String help;
        private String doc;
        private String choice;
        private boolean repeatable;
        private boolean adds;
        private boolean elasticOnly;
        private List<RunOption<?>> table;

        private Draft(List<String> names) {
            this.names = names;
        }

        /** The finished row is appended to {@code rows} (a table lists its rows in the order they are written). */
        public Draft in(List<RunOption<?>> rows) {
            table = rows;
            return this;
        }

        /** The argument's name; two words for two values ({@code MIN MAX}). */
        public Draft arg(String name) {
            arg = name;
            return this;
        }

        public Draft help(String text) {
            help = text;
            return this;
        }

        /** The README's text, where it says more than the help. */
        public Draft doc(String markdown) {
            doc = markdown;
            return this;
        }

        /** Cannot be combined with the options landing in (or choosing) {@code target}. */
        public Draft choice(String target) {
            choice = target;
            return this;
        }

        /** May be given several times; the values add to the list. */
        public Draft repeatable() {
            repeatable = true;
            return this;
        }

        /** Adds its values to a list target other options add to. */
        public Draft adds() {
            adds = true;
            return this;
        }

        /** Needs an elastic job. */
        public Draft elasticOnly() {
            elasticOnly = true;
            return this;
        }

        /** The value's parser; {@link Typed#into} names where it lands. */
        public <T> Typed<T> parsedBy(Parser<T> parser) {
            return new Typed<>(this, parser);
        }

        /** A flag: given, it lands {@code value}. */
        public <T> Typed<T> sets(T value) {
            return new Typed<>(this, g -> value);
        }

        /** An option the command reads itself, before or instead of parsing the others: it lands nothing. */
        public RunOption<Void> readElsewhere() {
            return register(new RunOption<>(this, g -> null, null, null));
        }

        private <T> RunOption<T> register(RunOption<T> row) {
            if (table != null) {
                table.add(row);
            }
            return row;
        }
    }

    /** A row with its parser; {@link #into} or {@link #landsBy} ends it. */
    public static final class Typed<T> {
        private final Draft draft;
        private final Parser<T> parser;

        private Typed(Draft draft, Parser<T> parser) {
            this.draft = draft;
            this.parser = parser;
        }

        /** The value lands in the component at {@code target} ({@link SettingPath}). */
        public RunOption<T> into(String target) {
            SettingPath.of(target); // a misspelt target fails when the table loads
            return draft.register(new RunOption<>(draft, parser, null, target));
        }

        /** The value lands through {@code landing}; {@code target} names what it sets, for conflicts and docs. */
        public RunOption<T> landsBy(Landing<T> landing, String target) {
            SettingPath.of(target);
            return draft.register(new RunOption<>(draft, parser, landing, target));
        }
    }
}
