package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.troika.common.exec.ProcessTable;
import org.troika.launcher.cli.Main;
import org.troika.launcher.options.RunOption;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.Subcommand;

/**
 * Hundreds of generated malformed invocations of {@code troika run}, {@code troika hosts} and {@code troika template}
 * through {@link Main} in-process, with every host source (flags, hostfiles, LSF/Slurm/PBS variables and files,
 * discovery scripts, template run options) and a fake {@code mpirun} on PATH that records every start. Each must end
 * with exit 2, exactly one {@code troika: error:} line on stderr without control characters or stack trace, nothing
 * on stdout, and no {@code mpirun} started. {@link MalformedInputDistTest} repeats a handful through the packaged
 * {@code bin/troika}.
 */
class MalformedInputTest {
    /** Generous per case on a shared machine; the red team's hangs (FIFOs, endless output) would never finish. */
    private static final Duration PER_CASE = Duration.ofSeconds(60);

    @TempDir
    static Path dir;
    private static Path log;
    private static Map<String, String> baseEnv;
    private static int files;

    /** One invocation: arguments after {@code troika} and the environment beyond {@link #baseEnv}. */
    record Case(String name, List<String> args, Map<String, String> env) {}

    @BeforeAll
    static void fakeMpirun() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        log = dir.resolve("mpirun.log");
        executable(bin.resolve("mpirun"), "printf '%s\\n' \"$*\" >> \"$FAKE_MPIRUN_LOG\"\n"
                + "case \"$1\" in --version) echo 'mpirun (Open MPI) 4.1.4'; exit 0;; esac\nexit 0");
        baseEnv = Map.of("PATH", bin + ":/usr/bin:/bin", "HOME", dir.toString(), "TMPDIR", dir.toString(),
                "FAKE_MPIRUN_LOG", log.toString());
    }

    private static Path executable(Path p, String body) throws IOException {
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    private static Path file(String content) throws IOException {
        return Files.writeString(dir.resolve("f" + files++), content);
    }

    /** A discovery script that prints {@code output} exactly. */
    private static Path discovery(String output) throws IOException {
        Path data = file(output);
        return executable(dir.resolve("d" + files++ + ".sh"), "cat '" + data + "'");
    }

    private record Result(int code, String out, String err) {}

    private static Result troika(List<String> args, Map<String, String> env) {
        return troika(args, env, "none");
    }

    /** Runs troika in-process; every process it starts inherits {@code RunSupport.MARKER=marker}. */
    private static Result troika(List<String> args, Map<String, String> env, String marker) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> all = new HashMap<>(baseEnv);
        all.putAll(env);
        all.put(RunSupport.MARKER, marker);
        int code = Main.run(args, new Subcommand.Io(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), all));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static List<String> mpirunStarts() throws IOException {
        return Files.exists(log) ? Files.readAllLines(log).stream().filter(l -> !l.equals("--version")).toList()
                : List.of();
    }

    /** Exit 2, one escaped {@code troika: error:} line, nothing else, no mpirun, no process left behind. */
    static void assertRefused(Case c) throws Exception {
        Files.deleteIfExists(log);
        String marker = UUID.randomUUID().toString();
        Result r = assertTimeoutPreemptively(PER_CASE, () -> troika(c.args(), c.env(), marker), c.name());
        assertNothingLeft(marker, c.name());
        String err = r.err();
        String why = c.name() + "\n--- stderr\n" + err + "--- stdout\n" + r.out();
        assertEquals(2, r.code(), why);
        assertEquals("", r.out(), why);
        assertTrue(err.startsWith("troika: error: ") && err.endsWith("\n"), why);
        String line = err.substring(0, err.length() - 1);
        assertTrue(line.chars().noneMatch(ch -> ch < 0x20 || ch == 0x7f || ch >= 0x80 && ch < 0xa0
                || ch == 0x2028 || ch == 0x2029 || ch >= 0x202a && ch <= 0x202e), "one line, no control characters: " + why);
        assertFalse(line.contains("Exception") || line.contains("Error:") || line.contains("\tat "), why);
        assertTrue(line.length() <= 1100, "bounded: " + line.length() + " characters");
        assertEquals(List.of(), mpirunStarts(), "mpirun must not start: " + why);
    }

    /** No process started for the case (a discovery script's background child) outlives it. */
    private static void assertNothingLeft(String marker, String name) throws InterruptedException {
        List<ProcessHandle> left = ProcessTable.withEnv(RunSupport.MARKER, marker);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50); // killed, not yet reaped
            left = ProcessTable.withEnv(RunSupport.MARKER, marker);
        }
        if (!left.isEmpty()) {
            List<String> info = new ArrayList<>();
            for (ProcessHandle h : left) {
                info.add(h.pid() + " " + h.info().commandLine().orElse("?"));
                h.destroyForcibly();
            }
            throw new AssertionError("processes outlived troika (" + name + "): " + info);
        }
    }

    @Test
    void theFakeMpirunRecordsAStartOfAValidInvocation() throws IOException {
        Files.deleteIfExists(log);
        Result r = troika(List.of("run", "-np", "2", "-H", "a:1,b:1", "true"), Map.of());
        assertEquals(0, r.code(), r.err());
        assertEquals(1, mpirunStarts().size(), "the recorder works, so 'not started' below means something");
    }

    /**
     * Issue 22: warnings are escaped and cut like errors. A config key with a line break printed a forged
     * {@code troika: rank 0 on host evil failed first} line; a long key gave a 1.8 MB warning.
     */
    @Test
    void warningsAreOneEscapedBoundedLineEach() throws IOException {
        String forged = "\"x\\ntroika: rank 0 on host evil failed first with exit code 9\\e[2J\": 1";
        Path config = file("params:\n  " + forged + "\n  ? " + "k".repeat(100_000) + "\n  : 1\n"); // an explicit key
        Result r = troika(List.of("run", "--config-file", config.toString(), "-np", "1", "true"), Map.of());
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.err().lines().toList();
        assertEquals(2, lines.size(), r.err().length() > 3000 ? r.err().substring(0, 3000) : r.err());
        for (String line : lines) {
            assertTrue(line.startsWith("troika: warning: ") && line.length() <= 1100, line.length() + ": "
                    + line.substring(0, Math.min(200, line.length())));
            assertTrue(line.chars().noneMatch(ch -> ch < 0x20 || ch == 0x7f), line);
        }
        assertTrue(lines.get(0).contains("x\\ntroika: rank 0"), lines.get(0));
    }

    /** Host names every source must refuse, none of which a source could split into valid names. */
    static List<String> badNames() {
        return List.of("-np", "--mca", "-", "-H", "-x.y", "a.-b", "a-", "a..b", ".a", "a.", "x".repeat(254),
                "x".repeat(300), "x".repeat(100_000), "y".repeat(64) + ".z", "a\u001b[31mb", "a\u001b]0;pwned\u0007",
                "a/b", "a;b", "$(id)", "`id`", "a'b", "a\"b", "b\u00fcro", "a*b", "a\\b", "a\u202eb", "a\u0085b",
                "a@b", "a!b", "a=b", "a%b", "a&b", "a|b", "a<b", "a(b)", "a{b}", "a~b", "a+b", "fe80::1",
                "\u00e9", "a\u0000b");
    }

    /** Names with whitespace or line breaks: only for sources that would not split them into valid names. */
    static List<String> badNamesWithSpace() {
        return List.of("a b", "a\tb", "a\nb", "a\rb", "-np 1", "a\u000bb");
    }

    static List<String> badSlots() {
        return List.of("0", "00", "-1", "x", "1.5", "+1", "0x10", "1048577", "2147483647", "2147483648",
                "99999999999999999999", "\u0661");
    }

    static List<Case> nameCases() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String n : badNames()) {
            String s = n.length() > 30 ? n.substring(0, 20) + "...(" + n.length() + ")" : n;
            cases.add(new Case("run -H " + s, List.of("run", "-H", n + ":1", "true"), Map.of()));
            cases.add(new Case("hosts -H " + s, List.of("hosts", "-H", n + ":2"), Map.of()));
            cases.add(new Case("run --hostfile " + s, List.of("run", "--hostfile", file(n + " slots=1\n").toString(),
                    "true"), Map.of()));
            cases.add(new Case("hosts LSB_MCPU_HOSTS " + s, List.of("hosts"),
                    Map.of("LSB_JOBID", "1", "LSB_MCPU_HOSTS", "h1 2 " + n + " 1")));
            cases.add(new Case("run LSB_HOSTS " + s, List.of("run", "true"),
                    Map.of("LSB_JOBID", "1", "LSB_HOSTS", n + " " + n)));
            cases.add(new Case("run LSB_DJOB_HOSTFILE " + s, List.of("run", "true"),
                    Map.of("LSB_JOBID", "1", "LSB_DJOB_HOSTFILE", file("h1\n" + n + "\n").toString())));
            cases.add(new Case("run PBS_NODEFILE " + s, List.of("run", "true"),
                    Map.of("PBS_JOBID", "1", "PBS_NODEFILE", file(n + "\n" + n + "\n").toString())));
            cases.add(new Case("run SLURM_JOB_NODELIST " + s, List.of("run", "true"),
                    Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", n, "SLURM_TASKS_PER_NODE", "1")));
            cases.add(new Case("run discovery " + s, List.of("run", "--host-discovery-script",
                    discovery("h1:1\n" + n + ":1\n").toString(), "--min-np", "1", "true"), Map.of()));
            cases.add(new Case("template -- -H " + s, List.of("template", "slurm", "--", "-H", n + ":1", "true"),
                    Map.of()));
        }
        for (String n : badNamesWithSpace()) {
            cases.add(new Case("run -H " + n, List.of("run", "-H", n + ":1", "true"), Map.of()));
            cases.add(new Case("hosts -H " + n, List.of("hosts", "-H", n + ":1"), Map.of()));
            cases.add(new Case("run discovery " + n, List.of("run", "--host-discovery-script",
                    discovery(n + ":1\n").toString(), "--max-np", "4", "true"), Map.of()));
            cases.add(new Case("template -- -H " + n, List.of("template", "pbs", "--", "-H", n + ":1", "true"),
                    Map.of()));
        }
        return cases;
    }

    static List<Case> slotCases() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String n : badSlots()) {
            cases.add(new Case("run -H a:" + n, List.of("run", "-H", "a:" + n, "true"), Map.of()));
            cases.add(new Case("hosts -H a:" + n, List.of("hosts", "-H", "a:" + n), Map.of()));
            cases.add(new Case("hostfile slots=" + n, List.of("run", "--hostfile", file("a slots=" + n + "\n").toString(),
                    "true"), Map.of()));
            cases.add(new Case("hostfile max_slots=" + n, List.of("hosts", "--hostfile",
                    file("a slots=2 max_slots=" + n + "\n").toString()), Map.of()));
            cases.add(new Case("LSB_MCPU_HOSTS a " + n, List.of("run", "true"),
                    Map.of("LSB_JOBID", "1", "LSB_MCPU_HOSTS", "a " + n)));
            cases.add(new Case("SLURM_TASKS_PER_NODE " + n, List.of("hosts"),
                    Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n1", "SLURM_TASKS_PER_NODE", n)));
            if (!n.matches("0+")) { // a discovery script's host:0 is a standby host (docs/elastic.md), not an error
                cases.add(new Case("discovery a:" + n, List.of("run", "--host-discovery-script",
                        discovery("a:" + n + "\n").toString(), "--min-np", "1", "true"), Map.of()));
            }
            cases.add(new Case("run -np " + n, List.of("run", "-np", n, "true"), Map.of()));
            cases.add(new Case("hosts -np " + n, List.of("hosts", "-np", n), Map.of()));
            cases.add(new Case("template -- -np " + n, List.of("template", "lsf", "--", "-np", n, "true"), Map.of()));
        }
        return cases;
    }

    static List<Case> totalCases() throws IOException {
        String max = "1048576";
        return List.of(
                new Case("-H a:2147483647,b:2147483647 (int overflow)", List.of("run", "-H",
                        "a:2147483647,b:2147483647", "true"), Map.of()),
                new Case("troika hosts -H a:2147483647 (1.4 GB rank table)", List.of("hosts", "-H", "a:2147483647"), Map.of()),
                new Case("-H total above the limit", List.of("hosts", "-H", "a:" + max + ",b:1"), Map.of()),
                new Case("hostfile total above the limit", List.of("hosts", "--hostfile",
                        file("a slots=" + max + "\nb slots=" + max + "\n").toString()), Map.of()),
                new Case("LSB_MCPU_HOSTS total above the limit", List.of("hosts"),
                        Map.of("LSB_JOBID", "1", "LSB_MCPU_HOSTS", "a " + max + " b 1")),
                new Case("LSB_MCPU_HOSTS one host summed above the limit", List.of("hosts"),
                        Map.of("LSB_JOBID", "1", "LSB_MCPU_HOSTS", "a " + max + " a " + max)),
                new Case("Slurm total above the limit", List.of("hosts"), Map.of("SLURM_JOB_ID", "1",
                        "SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", max + "(x3)")),
                new Case("PBS_NODEFILE with more than the limit of lines", List.of("hosts"), Map.of("PBS_JOBID", "1",
                        "PBS_NODEFILE", file("a\n".repeat(1_048_577)).toString())),
                new Case("discovery total above the limit", List.of("run", "--host-discovery-script",
                        discovery("a:" + max + "\nb:" + max + "\n").toString(), "--min-np", "1", "true"), Map.of()),
                new Case("-np above the limit", List.of("run", "-np", "1048577", "true"), Map.of()),
                new Case("--max-np above the limit", List.of("run", "--max-np", "2000000", "-H", "a:1,b:1", "true"),
                        Map.of()),
                new Case("--slots-per-host above the limit", List.of("run", "--slots-per-host", "2000000",
                        "--min-np", "1", "--host-discovery-script", discovery("a\n").toString(), "true"), Map.of()));
    }

    static List<Case> fileCases() throws Exception {
        Path fifo = dir.resolve("fifo");
        if (!Files.exists(fifo)) {
            assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        }
        Path notUtf8 = Files.write(dir.resolve("latin1"), new byte[] {'n', (byte) 0xe9, '\n'});
        List<Path> bad = List.of(fifo, Path.of("/dev/zero"), Path.of("/dev/urandom"), dir, dir.resolve("missing"),
                notUtf8, file(""), file("# only a comment\n\n"));
        List<Case> cases = new ArrayList<>();
        for (Path p : bad) {
            String s = p.getFileName() == null ? p.toString() : p.getFileName().toString();
            cases.add(new Case("--hostfile " + s, List.of("run", "--hostfile", p.toString(), "true"), Map.of()));
            cases.add(new Case("hosts --hostfile " + s, List.of("hosts", "--hostfile", p.toString()), Map.of()));
            cases.add(new Case("LSB_DJOB_HOSTFILE " + s, List.of("run", "true"),
                    Map.of("LSB_JOBID", "7", "LSB_DJOB_HOSTFILE", p.toString())));
            cases.add(new Case("PBS_NODEFILE " + s, List.of("run", "true"),
                    Map.of("PBS_JOBID", "7", "PBS_NODEFILE", p.toString())));
            cases.add(new Case("hosts PBS_NODEFILE " + s, List.of("hosts"), Map.of("PBS_NODEFILE", p.toString())));
        }
        return cases;
    }

    /** Issue 22: every timeline-path problem is one line before anything starts (the red team's 1.8 MB warning). */
    static List<Case> timelineCases() throws Exception {
        fileCases(); // makes the FIFO
        Path fifo = dir.resolve("fifo");
        Path htmlDir = Files.createDirectories(dir.resolve("page.html"));
        List<Case> cases = new ArrayList<>();
        for (String t : List.of(fifo.toString(), "/dev/null", htmlDir.resolveSibling("page.json").toString(),
                dir + "/", dir.resolve("x".repeat(100_000) + ".json").toString(), dir + "/no/such/dir/t.json",
                dir.resolve("a\nb\u001b[2J").resolve("t.json").toString())) {
            String s = t.length() > 40 ? t.substring(0, 30) + "...(" + t.length() + ")" : t;
            cases.add(new Case("run --timeline " + s, List.of("run", "--timeline", t, "-np", "1", "true"), Map.of()));
            cases.add(new Case("config timeline.filename " + s, List.of("run", "--config-file",
                    write("timeline:\n  filename: \"" + t.replace("\\", "\\\\").replace("\n", "\\n")
                            .replace("\u001b", "\\e") + "\"\n"), "-np", "1", "true"), Map.of()));
        }
        return cases;
    }

    /** Issue 22: config files bounded before parsing: size (comments count), nesting, aliases, file kinds. */
    static List<Case> configCases() throws Exception {
        fileCases(); // makes the FIFO
        Map<String, String> files = new java.util.LinkedHashMap<>();
        files.put("a 2 MB comment", "# " + "c".repeat(2_000_000) + "\n");
        files.put("1000 levels of flow lists", "params: " + "[".repeat(1000) + "]".repeat(1000) + "\n");
        files.put("an unclosed 500000-level list", "params: " + "[".repeat(500_000) + "\n");
        files.put("a self-referencing map", "params: &p {x: *p}\n");
        files.put("a self-referencing list", "a: &a [*a]\n");
        files.put("billion laughs", "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                + "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n");
        List<Case> cases = new ArrayList<>();
        files.forEach((name, text) -> cases.add(new Case("config file: " + name, List.of("run", "--config-file",
                write(text), "-np", "1", "true"), Map.of())));
        for (String special : List.of(dir.resolve("fifo").toString(), "/dev/zero", dir.toString())) {
            cases.add(new Case("config file " + special, List.of("run", "--config-file", special, "-np", "1", "true"),
                    Map.of()));
        }
        return cases;
    }

    static List<Case> discoveryCases() throws IOException {
        Map<String, String> scripts = new java.util.LinkedHashMap<>();
        scripts.put("a 20 MB line", "head -c 20000000 /dev/zero | tr '\\000' a; echo");
        scripts.put("endless output", "cat /dev/zero");
        scripts.put("200000 lines", "yes a:1 | head -n 200000");
        scripts.put("exit 1 with escape sequences", "printf 'down \\033[2J\\n' >&2; exit 1");
        scripts.put("exit 3, a background child left", "sleep 300 & echo a:1; exit 3");
        scripts.put("two slot counts for one host", "echo a:1; echo a:2");
        scripts.put("no slot count", "echo a");
        scripts.put("two colons", "echo a:1:2");
        scripts.put("hangs past its timeout", "exec sleep 300");
        List<Case> cases = new ArrayList<>();
        for (Map.Entry<String, String> e : scripts.entrySet()) {
            Path script = executable(dir.resolve("s" + files++ + ".sh"), e.getValue());
            cases.add(new Case("discovery: " + e.getKey(), List.of("run", "--host-discovery-script", script.toString(),
                    "--min-np", "1", "true"), Map.of()));
        }
        return cases;
    }

    /** Valued options from a command's own --help (so options added later are covered): name, value count. */
    static Map<String, Integer> valuedOptions(List<String> helpArgs) {
        Result help = troika(helpArgs, Map.of());
        assertEquals(0, help.code(), help.err());
        Pattern opt = Pattern.compile("^\\s+(?:-(\\S+?),)?\\s*--([a-z][a-z-]*) <([^>]+)>\\s+(.*)$");
        Map<String, Integer> found = new java.util.LinkedHashMap<>();
        for (String line : help.out().lines().toList()) {
            Matcher m = opt.matcher(line);
            if (m.matches() && !m.group(4).contains("repeatable")) {
                int values = m.group(3).split(" ").length;
                found.put("--" + m.group(2), values);
                if (m.group(1) != null) {
                    found.put("-" + m.group(1), values);
                }
            }
        }
        return found;
    }

    /** Valued options of troika run from its option table (every name of each row), with their value counts. */
    static Map<String, Integer> valuedRunOptions() {
        Map<String, Integer> found = new java.util.LinkedHashMap<>();
        for (RunOption<?> row : RunOptionTable.ALL) {
            if (row.arity() > 0 && !row.repeatable()) {
                row.names().forEach(n -> found.put(n, row.arity()));
            }
        }
        return found;
    }

    static List<Case> repeatCases() {
        List<Case> cases = new ArrayList<>();
        Map<String, Integer> run = valuedRunOptions();
        assertTrue(run.containsKey("-np") && run.containsKey("--hostfile") && run.size() > 20, run.toString());
        assertEquals(new java.util.TreeMap<>(run), new java.util.TreeMap<>(valuedOptions(List.of("run", "--help"))),
                "--help lists the table's options");
        for (Map.Entry<String, Integer> o : run.entrySet()) {
            List<String> once = new ArrayList<>();
            once.add(o.getKey());
            for (int i = 0; i < o.getValue(); i++) {
                once.add(String.valueOf(i + 1));
            }
            List<String> args = new ArrayList<>(List.of("run"));
            args.addAll(once);
            args.addAll(once);
            args.add("true");
            cases.add(new Case("run " + o.getKey() + " twice", args, Map.of()));
            List<String> hosts = new ArrayList<>(args.subList(0, args.size() - 1));
            hosts.set(0, "hosts");
            cases.add(new Case("hosts " + o.getKey() + " twice", hosts, Map.of()));
            List<String> template = new ArrayList<>(List.of("template", "slurm", "--"));
            template.addAll(args.subList(1, args.size()));
            cases.add(new Case("template -- " + o.getKey() + " twice", template, Map.of()));
        }
        Map<String, Integer> template = valuedOptions(List.of("template", "--help"));
        assertTrue(template.containsKey("--nodes") && template.containsKey("-N"), template.toString());
        for (String o : template.keySet()) {
            cases.add(new Case("template " + o + " twice", List.of("template", "slurm", o, "1", o, "2", "--", "true"),
                    Map.of()));
        }
        return cases;
    }

    static List<Case> otherCases() {
        return List.of(
                new Case("troika with no arguments", List.of(), Map.of()),
                new Case("unknown command with escapes", List.of("lunch\u001b[2J\n"), Map.of()),
                new Case("template with no arguments", List.of("template"), Map.of()),
                new Case("template unknown system", List.of("template", "sge\n"), Map.of()),
                new Case("template without a command", List.of("template", "slurm"), Map.of()),
                new Case("template -- run options without a command", List.of("template", "slurm", "--", "-np", "2"),
                        Map.of()),
                new Case("template -- -np x", List.of("template", "slurm", "--", "-np", "x", "true"), Map.of()),
                new Case("template -- -np 0", List.of("template", "slurm", "--", "-np", "0", "true"), Map.of()),
                new Case("template -- --bogus", List.of("template", "slurm", "--", "--bogus", "true"), Map.of()),
                new Case("template -- --mpi --jsrun", List.of("template", "slurm", "--", "--mpi", "--jsrun", "true"),
                        Map.of()),
                new Case("template -- --min-np 5 --max-np 2", List.of("template", "lsf", "--", "--min-np", "5",
                        "--max-np", "2", "true"), Map.of()),
                new Case("template -- --ssh-port 70000", List.of("template", "pbs", "--", "--ssh-port", "70000",
                        "true"), Map.of()),
                new Case("template -- --mpi-flavor lam", List.of("template", "pbs", "--", "--mpi-flavor", "lam",
                        "true"), Map.of()),
                new Case("template -- --help", List.of("template", "slurm", "--", "--help", "true"), Map.of()),
                new Case("template --job-name with a newline", List.of("template", "slurm", "--job-name", "a\nb", "--",
                        "true"), Map.of()),
                new Case("run -np with a newline", List.of("run", "-np", "1\n2", "true"), Map.of()),
                new Case("run --mpi-flavor escape", List.of("run", "--mpi-flavor", "\u001b[2Jx", "true"), Map.of()),
                new Case("run unknown option escape", List.of("run", "--\u001b[31mbogus", "true"), Map.of()),
                new Case("run --network-interfaces escape", List.of("run", "--network-interfaces", "eth0,\u001b[0m",
                        "-np", "1", "true"), Map.of()),
                new Case("run --remote-shell empty", List.of("run", "--remote-shell", " ", "-np", "1", "true"),
                        Map.of()),
                new Case("run -np more than -H slots", List.of("run", "-np", "5", "-H", "a:2,b:2", "true"), Map.of()),
                new Case("run --mpi-args unbalanced", List.of("run", "--mpi-args", "'a", "-np", "1", "true"), Map.of()),
                new Case("run -H and --hostfile", List.of("run", "-H", "a:1", "--hostfile", "x", "true"), Map.of()),
                new Case("run no command", List.of("run", "-np", "2"), Map.of()),
                new Case("Slurm unclosed bracket", List.of("hosts"), Map.of("SLURM_JOB_ID", "1",
                        "SLURM_JOB_NODELIST", "n[1-3", "SLURM_TASKS_PER_NODE", "1(x3)")),
                new Case("Slurm huge range", List.of("hosts"), Map.of("SLURM_JOB_ID", "1",
                        "SLURM_JOB_NODELIST", "n[1-999999999]", "SLURM_TASKS_PER_NODE", "1")),
                new Case("LSB_MCPU_HOSTS odd words", List.of("hosts"), Map.of("LSB_JOBID", "1", "LSB_MCPU_HOSTS",
                        "-np 1 h2")),
                new Case("CSM id that is an option", List.of("hosts"), Map.of("LSB_JOBID", "1", "CSM_ALLOCATION_ID",
                        "--help", "TROIKA_CSM_BIN", dir.toString())),
                new Case("hostfile duplicate slots", List.of("hosts", "--hostfile", write("a slots=1 slots=2\n")),
                        Map.of()),
                new Case("hostfile duplicate max_slots", List.of("hosts", "--hostfile",
                        write("a max_slots=4 max-slots=8\n")), Map.of()),
                new Case("hostfile host twice", List.of("hosts", "--hostfile", write("a\nb\na slots=2\n")), Map.of()),
                new Case("hostfile -np line", List.of("run", "--hostfile", write("-np slots=1\n"), "true"), Map.of()),
                // issue 22: a file name whose bytes are not text in the locale (Latin-1 under UTF-8, anything under C)
                new Case("--hostfile named in Latin-1", List.of("run", "--hostfile", dir + "/caf\udce9", "true"),
                        Map.of()),
                new Case("--timeline named in Latin-1", List.of("run", "--timeline", dir + "/t\udce9.json", "-np", "1",
                        "true"), Map.of()),
                new Case("--output-filename named in Latin-1", List.of("run", "--output-filename", dir + "/o\udce9",
                        "-np", "1", "true"), Map.of()));
    }

    private static String write(String content) {
        try {
            return file(content).toString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyMalformedInvocationIsOneLineExitTwoAndLaunchesNothing() throws Exception {
        List<Case> cases = new ArrayList<>();
        cases.addAll(nameCases());
        cases.addAll(slotCases());
        cases.addAll(totalCases());
        cases.addAll(fileCases());
        cases.addAll(discoveryCases());
        cases.addAll(timelineCases());
        cases.addAll(configCases());
        cases.addAll(repeatCases());
        cases.addAll(otherCases());
        cases.addAll(outputFolderCases());
        Map<String, Case> byName = new java.util.LinkedHashMap<>(); // a case generated twice runs once
        cases.forEach(c -> byName.putIfAbsent(c.name(), c));
        assertTrue(byName.size() >= 700, "generated " + byName.size() + " cases");
        return byName.values().stream()
                .map(c -> dynamicTest(c.name().replaceAll("\\p{Cntrl}", "?"), () -> assertRefused(c)));
    }

    /**
     * Issue 22: {@code --output-filename} folders that cannot hold rank files (a file, a device, a folder troika cannot
     * write, a FIFO, link or folder where a rank file goes), for static and elastic runs. Each is one line, exit 2,
     * before anything is launched; nothing is written into the folder and a link's target is never touched.
     */
    static List<Case> outputFolderCases() throws Exception {
        Path out = dir.resolve("outputs");
        Files.createDirectories(out);
        Path afile = Files.writeString(out.resolve("a-file"), "x\n");
        Path fifoDir = Files.createDirectories(out.resolve("fifo"));
        if (!Files.exists(fifoDir.resolve("rank.0.stdout"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            assertEquals(0, new ProcessBuilder("mkfifo", fifoDir.resolve("rank.0.stdout").toString()).inheritIO()
                    .start().waitFor());
        }
        Path linkDir = Files.createDirectories(out.resolve("link"));
        Path victim = Files.writeString(out.resolve("victim"), "must stay\n");
        if (!Files.exists(linkDir.resolve("rank.1.stderr"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(linkDir.resolve("rank.1.stderr"), victim);
        }
        Path dirDir = Files.createDirectories(out.resolve("dir").resolve("rank.0.stderr"));
        Map<String, Path> bad = new java.util.LinkedHashMap<>();
        bad.put("a file", afile);
        bad.put("/dev/null", Path.of("/dev/null"));
        bad.put("a folder inside a file", afile.resolve("sub"));
        bad.put("an unwritable folder", Path.of("/proc/1/fdinfo"));
        bad.put("a FIFO as rank.0.stdout", fifoDir);
        bad.put("a link as rank.1.stderr", linkDir);
        bad.put("a folder as rank.0.stderr", dirDir.getParent());
        List<Case> cases = new ArrayList<>();
        for (Map.Entry<String, Path> b : bad.entrySet()) {
            cases.add(new Case("--output-filename " + b.getKey(), List.of("run", "--output-filename",
                    b.getValue().toString(), "-np", "2", "-H", "localhost:2", "true"), Map.of()));
            cases.add(new Case("elastic --output-filename " + b.getKey(), List.of("run", "--output-filename",
                    b.getValue().toString(), "--host-discovery-script", discovery("localhost:2\n").toString(),
                    "--min-np", "2", "true"), Map.of()));
        }
        return cases;
    }

    @Test
    void aRefusedOutputFolderGetsNothingWrittenAndALinksTargetIsUntouched() throws Exception {
        outputFolderCases().forEach(c -> {
            try {
                assertRefused(c);
            } catch (Exception e) {
                throw new AssertionError(c.name(), e);
            }
        });
        Path out = dir.resolve("outputs");
        assertEquals("must stay\n", Files.readString(out.resolve("victim")));
        for (String d : List.of("fifo", "link", "dir")) {
            try (Stream<Path> files = Files.list(out.resolve(d))) {
                assertEquals(1, files.count(), d + " holds only what the test planted (no rank files, no timeline)");
            }
        }
    }
}
