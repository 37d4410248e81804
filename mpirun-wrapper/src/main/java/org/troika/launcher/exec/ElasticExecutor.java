package org.troika.launcher.exec;

import java.io.PrintStream;
import org.troika.common.exec.PosixSignal;
import org.troika.launcher.elastic.ElasticDriver;
import org.troika.launcher.elastic.ElasticResult;

/**
 * Runs an elastic driver on the calling thread with SIGINT/SIGTERM handling: a signal interrupts the driver, the
 * caller's {@link MpirunGenerationLauncher#close()} then tears the running generation down, and the exit code is
 * {@code 128 + signal}. Prints the driver's final line on {@code err}.
 */
public final class ElasticExecutor {
    private ElasticExecutor() {}

    /** @return the job's exit code */
    public static int run(ElasticDriver driver, PrintStream err) {
        Thread caller = Thread.currentThread();
        PosixSignal[] received = new PosixSignal[1];
        try (SignalTrap trap = SignalTrap.install(sig -> {
            synchronized (received) {
                if (received[0] == null) {
                    received[0] = sig;
                }
            }
            caller.interrupt();
        }, PosixSignal.INT, PosixSignal.TERM)) {
            ElasticResult r = driver.run();
            err.println("troika elastic: " + r.message());
            return r.exitCode();
        } catch (InterruptedException e) {
            PosixSignal sig;
            synchronized (received) {
                sig = received[0] != null ? received[0] : PosixSignal.INT;
            }
            err.println("troika elastic: stopped by SIG" + sig.name() + "; tearing the generation down");
            return sig.exitCode();
        }
    }
}
