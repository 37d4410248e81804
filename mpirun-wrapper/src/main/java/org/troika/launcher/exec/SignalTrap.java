package org.troika.launcher.exec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.troika.common.exec.PosixSignal;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Installs a handler for some signals while a job runs and restores the previous handlers on {@link #close()}.
 * Uses {@code sun.misc.Signal} (module jdk.unsupported), the only way a JDK 17 program can catch SIGINT without
 * exiting. The handler runs on a JVM signal-dispatch thread, one per delivered signal.
 */
final class SignalTrap implements AutoCloseable {
    private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();

    private SignalTrap() {}

    /** Routes each of {@code signals} to {@code handler}; a signal the JVM reserves (e.g. under -Xrs) is skipped. */
    static SignalTrap install(Consumer<PosixSignal> handler, PosixSignal... signals) {
        SignalTrap trap = new SignalTrap();
        for (PosixSignal s : signals) {
            Signal sig = new Signal(s.name());
            try {
                trap.previous.put(sig, Signal.handle(sig, x -> handler.accept(s)));
            } catch (IllegalArgumentException e) {
                // reserved by the JVM: the default behaviour stays, and the supervisor's guard still cleans up
            }
        }
        return trap;
    }

    @Override
    public void close() {
        previous.forEach(Signal::handle);
    }
}
