package org.troika.common.exec;

import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Makes a {@link LaunchPlan} reach its process byte for byte (pure: a plan in, a plan out).
 *
 * <p>{@link ProcessBuilder} encodes argv and environment strings itself: JDK 17 with {@code file.encoding}, JDK 18 and
 * later with {@code sun.jnu.encoding}; neither can be told to pass bytes, and under {@code LANG=C} both turn every
 * byte above 127 into {@code ?}. A plan whose words and variables all encode to their {@link NativeText} bytes in
 * both charsets is returned as it is (the usual case: no cost). Otherwise the plan runs through a small
 * {@code /bin/sh} decoder:
 * <pre>
 *   /bin/sh -c DECODE troika-exec [/usr/bin/env -- NAME=VALUE... [/bin/sh -c 'exec "$@"' troika-exec]] ARGV...
 * </pre>
 * Every word after {@code troika-exec} is ASCII: a backslash and each byte above 127 are written {@code \0ooo}, which
 * {@code printf %b} turns back into the byte. The decoder decodes each word that holds a backslash and
 * {@code exec}s the result, so the exit status and the pid stay the plan's. Variables that do not pass as they are
 * are set by {@code env(1)}, which takes any name; when the program's name holds {@code =} (which {@code env} would
 * read as a variable) a second {@code sh} runs it. Each byte above 127 takes 5 bytes in the encoded word, so such a
 * word can hold at most about 26,000 of them (Linux limits one argv word to 128 KiB).
 */
public final class ExactExec {
    /** The decoder (see the class comment). {@code printf} is a shell built-in; {@code $()} drops trailing newlines. */
    static final String DECODE = "for a do shift; case $a in *\\\\*) a=$(printf '%bx' \"$a\"); a=${a%x} ;; esac;"
            + " set -- \"$@\" \"$a\"; done; exec \"$@\"";

    static final String NAME = "troika-exec";

    /** For this JVM: its native charset, and the charsets its {@link ProcessBuilder} may encode with. */
    public static final ExactExec SYSTEM = new ExactExec(NativeText.CHARSET,
            List.of(NativeText.CHARSET, Charset.defaultCharset()), Objects.requireNonNullElse(
            ProcessSupervisor.firstExecutable("/usr/bin/env", "/bin/env"), "env"));

    private final Charset nativeCharset;
    private final List<Charset> processCharsets;
    private final String envProgram;

    /**
     * @param nativeCharset the charset {@link NativeText} decodes with
     * @param processCharsets every charset {@link ProcessBuilder} may encode a string with
     * @param envProgram the absolute path of {@code env(1)}
     */
    public ExactExec(Charset nativeCharset, List<Charset> processCharsets, String envProgram) {
        this.nativeCharset = Objects.requireNonNull(nativeCharset);
        this.processCharsets = List.copyOf(processCharsets);
        this.envProgram = Objects.requireNonNull(envProgram);
    }

    /** {@code plan} itself when it passes as it is, else the same plan run through the decoder. */
    public LaunchPlan plan(LaunchPlan plan) {
        boolean argvPasses = plan.argv().stream().allMatch(this::passes);
        Map<String, String> plain = new LinkedHashMap<>();
        List<String> assignments = new ArrayList<>();
        plan.env().forEach((k, v) -> {
            if (passes(k) && passes(v)) {
                plain.put(k, v);
            } else {
                assignments.add(k + "=" + v);
            }
        });
        if (argvPasses && assignments.isEmpty()) {
            return plan;
        }
        List<String> words = new ArrayList<>();
        if (!assignments.isEmpty()) {
            words.add(envProgram);
            words.add("--");
            assignments.sort(null); // a stable order: plans are compared as data
            words.addAll(assignments);
            if (plan.argv().get(0).indexOf('=') >= 0) {
                words.addAll(List.of("/bin/sh", "-c", "exec \"$@\"", NAME));
            }
        }
        words.addAll(plan.argv());
        List<String> argv = new ArrayList<>(words.size() + 4);
        argv.addAll(List.of("/bin/sh", "-c", DECODE, NAME));
        for (String w : words) {
            argv.add(escape(encode(w)));
        }
        LaunchPlan exact = new LaunchPlan(argv, plain);
        return plan.workDir() == null ? exact : exact.withWorkDir(plan.workDir());
    }

    /** Whether {@code s} reaches a child as its exact bytes through {@link ProcessBuilder}. */
    boolean passes(String s) {
        if (NativeText.isAscii(s)) {
            return true;
        }
        byte[] exact = encode(s);
        for (Charset c : processCharsets) {
            if (!Arrays.equals(exact, s.getBytes(c))) {
                return false;
            }
        }
        return true;
    }

    private byte[] encode(String s) {
        return NativeText.encode(s, nativeCharset);
    }

    /** The word {@code printf %b} turns into {@code bytes}: ASCII, with backslashes and high bytes as {@code \0ooo}. */
    static String escape(byte[] bytes) {
        StringBuilder b = new StringBuilder(bytes.length + 16);
        for (byte x : bytes) {
            if (x < 0 || x == '\\') {
                String oct = Integer.toOctalString(x & 0xff);
                b.append("\\0").append("000", oct.length(), 3).append(oct);
            } else {
                b.append((char) x);
            }
        }
        return b.toString();
    }
}
