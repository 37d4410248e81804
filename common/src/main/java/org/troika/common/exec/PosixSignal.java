package org.troika.common.exec;

/** The POSIX signals troika sends or forwards, with their Linux numbers. */
public enum PosixSignal {
    HUP(1), INT(2), KILL(9), TERM(15);

    private final int number;

    PosixSignal(int number) {
        this.number = number;
    }

    public int number() {
        return number;
    }

    /** The exit code a shell reports for a process killed by this signal: {@code 128 + number}. */
    public int exitCode() {
        return exitCodeOf(number);
    }

    /**
     * Maps death by signal {@code n} to the shell convention {@code 128 + n} (SIGTERM → 143, SIGKILL → 137).
     * {@link Process#exitValue()} on Linux already reports signals this way, so supervisor exit codes need no
     * further mapping.
     */
    public static int exitCodeOf(int n) {
        if (n < 1 || n > 64) {
            throw new IllegalArgumentException("not a signal number: " + n);
        }
        return 128 + n;
    }
}
