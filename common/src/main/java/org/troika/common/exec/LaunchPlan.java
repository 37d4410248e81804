package org.troika.common.exec;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.troika.common.ShellQuote;

/**
 * A planned external command: argv, the complete child environment and an optional working directory.
 * Built by pure planners, run only by executors, printed by {@code --dry-run}.
 *
 * @param argv the command words; one flag is one element and its value the next element
 * @param env the complete environment of the child (not a delta)
 * @param workDir working directory, or {@code null} for the caller's
 */
public record LaunchPlan(List<String> argv, Map<String, String> env, Path workDir) {
    public LaunchPlan {
        argv = List.copyOf(argv);
        env = Map.copyOf(env);
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("a launch plan needs at least one argv word");
        }
    }

    public LaunchPlan(List<String> argv, Map<String, String> env) {
        this(argv, env, null);
    }

    /** The argv, shell-quoted on one line (what {@code --dry-run} prints). */
    public String render() {
        return ShellQuote.join(argv);
    }

    /** The same command with {@code newEnv} as its complete environment. */
    public LaunchPlan withEnv(Map<String, String> newEnv) {
        return new LaunchPlan(argv, newEnv, workDir);
    }

    public LaunchPlan withWorkDir(Path dir) {
        return new LaunchPlan(argv, env, Objects.requireNonNull(dir));
    }
}
