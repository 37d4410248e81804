package org.troika.launcher.options;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.troika.common.ShellQuote;
import org.troika.common.UsageException;
import org.troika.launcher.hosts.HostListParser;
import org.troika.launcher.hosts.HostfileParser;
import org.troika.launcher.options.RunOption.Given;
import org.troika.launcher.spi.FaultTolerance;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.UserText;
import org.troika.launcher.timeline.Timeline;

/**
 * The parsers of the option table: the syntax of what was given, and the files it names. Ranges are the settings'
 * records' to check.
 */
final class ValueParsers {
    private ValueParsers() {}

    static Integer whole(Given g) {
        return whole(g.value(), g.shown());
    }

    /** Whole seconds. */
    static Duration seconds(Given g) {
        return Duration.ofSeconds(whole(g));
    }

    /** Decimal seconds, to the millisecond. */
    static Duration decimalSeconds(Given g) {
        String v = g.value().trim();
        if (!v.matches("[0-9]{1,6}(\\.[0-9]{1,3})?")) {
            throw new UsageException(g.shown() + " needs seconds such as 2 or 0.25 (at most 3 decimals), got "
                    + UserText.quote(g.value()));
        }
        return Duration.ofMillis(new BigDecimal(v).movePointRight(3).longValueExact());
    }

    static RunSettings.Cooldown cooldown(Given g) {
        int lo = whole(g.values().get(0), g.shown() + " MIN");
        int hi = whole(g.values().get(1), g.shown() + " MAX");
        return new RunSettings.Cooldown(Duration.ofSeconds(lo), Duration.ofSeconds(hi));
    }

    static RunSettings.Hosts hostList(Given g) {
        return new RunSettings.Hosts(null, HostListParser.parse(g.value()), "-H");
    }

    /** The hostfile's hosts, or {@code null} in a syntax check. */
    static RunSettings.Hosts hostfile(Given g) {
        if (g.files() == null) {
            return null;
        }
        Path p = Path.of(g.value());
        List<String> lines = g.files().readHostLines("hostfile " + p, p, "give a readable hostfile to --hostfile");
        return new RunSettings.Hosts(null, HostfileParser.parse(p.toString(), lines), "hostfile " + p);
    }

    /** A comma-separated list without empty entries. */
    static List<String> commaList(Given g) {
        List<String> out = new ArrayList<>();
        for (String part : g.value().split(",", -1)) {
            String t = part.trim();
            if (t.isEmpty()) {
                throw new UsageException(g.shown() + " " + UserText.quote(g.value())
                        + " has an empty or malformed entry; write e.g. eth0,ib0 or 10.1.0.0/16");
            }
            out.add(t);
        }
        return out;
    }

    /** Words split as a shell would (quotes honoured). */
    static List<String> words(Given g) {
        try {
            return ShellQuote.split(g.value());
        } catch (IllegalArgumentException e) {
            throw new UsageException(g.shown() + ": " + e.getMessage() + "; balance the quotes");
        }
    }

    static String trimmed(Given g) {
        return g.value().trim();
    }

    static String lowerCase(Given g) {
        return g.value().toLowerCase(Locale.ROOT);
    }

    static Path path(Given g) {
        return Path.of(g.value());
    }

    /** A file that must be readable where the job starts (not checked in a syntax check). */
    static Path readableFile(Given g) {
        Path p = Path.of(g.value());
        if (g.files() != null && !Files.isReadable(p)) {
            throw new UsageException(g.shown() + " " + p + " does not exist or is not readable; give the private key"
                    + " path");
        }
        return p;
    }

    /** An executable file (not checked in a syntax check). */
    static Path executable(Given g) {
        Path p = Path.of(g.value());
        if (g.files() != null && (!Files.isRegularFile(p) || !Files.isExecutable(p))) {
            throw new UsageException(g.shown() + " " + p + " is not an executable file; chmod +x it or fix the path");
        }
        return p;
    }

    static Path timeline(Given g) {
        return Timeline.checkTarget(g.value(), g.shown(), false);
    }

    static RunSettings.LaunchAgent launchAgent(Given g) {
        String v = lowerCase(g);
        return switch (v) {
            case "relay" -> RunSettings.LaunchAgent.RELAY;
            case "ssh" -> RunSettings.LaunchAgent.SSH;
            default -> throw new UsageException(g.shown() + " " + UserText.quote(v) + " is not known; use relay or ssh");
        };
    }

    static RunSettings.Backend backend(Given g) {
        return RunSettings.Backend.named(g.value()); // resolved against the loaded backends when the launch is planned
    }

    static FaultTolerance faultTolerance(Given g) {
        return FaultTolerance.parse(g.value());
    }

    private static int whole(String raw, String shown) {
        String v = raw.trim();
        if (!v.matches("[0-9]{1,9}")) {
            throw new UsageException(shown + " needs a whole number (at most 9 digits), got " + UserText.quote(raw));
        }
        return Integer.parseInt(v);
    }
}
