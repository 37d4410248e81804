package org.troika.templates;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders the batch script templates kept as resources ({@code org/troika/templates/<system>.sh}).
 *
 * <p>Template rules, line by line:
 * <ul>
 *   <li>{@code {{name}}} is replaced by the value of {@code name}; an unknown name is a bug (ISE);</li>
 *   <li>a line starting with {@code {{?name}}} is kept (without the marker) only when {@code name} has a non-empty
 *       value; a line starting with {@code {{!name}}} only when it has none.</li>
 * </ul>
 * Values are inserted verbatim: callers validate or shell-quote them first ({@link TemplateCommand} does).
 */
public final class TemplateRenderer {
    private static final Pattern CONDITION = Pattern.compile("^\\{\\{([?!])([a-z_]+)}}");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z_]+)}}");

    private TemplateRenderer() {}

    /** The template text for {@code system}. */
    public static String load(String system) {
        String path = "/org/troika/templates/" + system + ".sh";
        try (InputStream in = TemplateRenderer.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("no template resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Renders {@code template} with {@code values} (see the class comment for the rules). */
    public static String render(String template, Map<String, String> values) {
        StringBuilder out = new StringBuilder();
        for (String line : template.split("\n", -1)) {
            Matcher c = CONDITION.matcher(line);
            if (c.find()) {
                boolean has = !values.getOrDefault(c.group(2), "").isEmpty();
                if (has != c.group(1).equals("?")) {
                    continue;
                }
                line = line.substring(c.end());
            }
            Matcher m = PLACEHOLDER.matcher(line);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                String v = values.get(m.group(1));
                if (v == null) {
                    throw new IllegalStateException("template placeholder {{" + m.group(1) + "}} has no value");
                }
                m.appendReplacement(sb, Matcher.quoteReplacement(v));
            }
            m.appendTail(sb);
            out.append(sb).append('\n');
        }
        // split(-1) keeps the empty string after the final newline: drop the extra newline it adds
        return out.substring(0, out.length() - 1);
    }
}
