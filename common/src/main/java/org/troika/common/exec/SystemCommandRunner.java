package org.troika.common.exec;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Runs probes for real, through {@link ProcessSupervisor} (own session, no parent-death guard: probes are short and
 * end by themselves): stdin from {@code /dev/null}, stdout and stderr captured together, the whole process tree
 * killed when the timeout expires ({@link ProbeResult#TIMED_OUT}).
 * A program that is not found or cannot be executed gives {@link ProbeResult#NOT_FOUND}.
 */
public final class SystemCommandRunner implements CommandRunner {
    /** Grace between SIGTERM and SIGKILL for a probe that timed out. */
    private static final Duration PROBE_GRACE = Duration.ofSeconds(1);

    private final Map<String, String> env;

    /** Probes run with {@code env} as their complete environment (normally the caller's). */
    public SystemCommandRunner(Map<String, String> env) {
        this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }

    /** Probes run with this JVM's environment. */
    public static SystemCommandRunner withSystemEnv() {
        return new SystemCommandRunner(NativeText.environment()); // the bytes as given (NativeText)
    }

    @Override
    public ProbeResult run(List<String> argv, Duration timeout) {
        StringBuffer out = new StringBuffer(); // both reader threads append
        LineSink sink = out::append;
        ProcessSupervisor p;
        try {
            p = ProcessSupervisor.start(new LaunchPlan(argv, env),
                    ProcessSupervisor.Options.of(sink, sink).withoutGuard());
        } catch (IOException e) {
            return new ProbeResult(ProbeResult.NOT_FOUND, String.valueOf(e.getMessage()));
        }
        try {
            Integer code = p.waitFor(timeout);
            if (code == null) {
                p.terminate(PROBE_GRACE);
                return new ProbeResult(ProbeResult.TIMED_OUT, out.toString());
            }
            // sh reports 126 for "found but not executable"; both mean the probe could not run
            return new ProbeResult(code == 126 ? ProbeResult.NOT_FOUND : code, out.toString());
        } catch (InterruptedException e) {
            p.close();
            Thread.currentThread().interrupt();
            return new ProbeResult(ProbeResult.TIMED_OUT, out.toString());
        }
    }
}
