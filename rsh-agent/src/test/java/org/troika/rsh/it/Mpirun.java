package org.troika.rsh.it;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** One mpirun process whose merged output is collected line by line; killed (tree) by pid in {@link #close()}. */
final class Mpirun implements AutoCloseable {
    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final Thread reader;
    private volatile Predicate<String> watch = l -> false;
    private volatile CountDownLatch watched = new CountDownLatch(0);

    Mpirun(List<String> argv, Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        process = pb.start();
        reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    output.append(line).append('\n');
                    if (watch.test(line)) {
                        watched.countDown();
                    }
                }
            } catch (IOException ignored) {
                // process ended
            }
        });
        reader.setDaemon(true);
        reader.start();
    }

    /** Counts down once per output line matching {@code p}; returns a latch of {@code n}. */
    CountDownLatch watch(Predicate<String> p, int n) {
        watched = new CountDownLatch(n);
        watch = p;
        return watched;
    }

    /** Waits for the exit; {@code null} on timeout. */
    Integer waitFor(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            return null;
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        return process.exitValue();
    }

    String output() {
        return output.toString();
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
