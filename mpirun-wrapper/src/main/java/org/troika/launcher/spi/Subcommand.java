package org.troika.launcher.spi;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * A {@code troika <name>} subcommand. Built-ins live in troika-launcher; other modules contribute theirs through
 * {@link java.util.ServiceLoader} ({@code META-INF/services/org.troika.launcher.spi.Subcommand}).
 */
public interface Subcommand {
    /** The word after {@code troika}. */
    String name();

    /** One line for {@code troika --help}. */
    String summary();

    /**
     * Runs the subcommand.
     *
     * @param args the words after the subcommand name
     * @param io standard streams and the process environment
     * @return the process exit code
     * @throws org.troika.common.UsageException for bad input (main prints it and exits 2)
     */
    int run(List<String> args, Io io) throws Exception;

    /**
     * Standard streams and the environment, injected so subcommands are testable in-process. The environment's values
     * are the process's bytes in {@link org.troika.common.exec.NativeText} form.
     */
    record Io(PrintStream out, PrintStream err, Map<String, String> env) {
        public static Io system() {
            return new Io(System.out, System.err, org.troika.common.exec.NativeText.environment());
        }
    }
}
