package org.troika.common;

/**
 * Bad input from the user: a malformed flag, hostfile, environment value or an impossible request.
 *
 * <p>The message is one line that names the problem and the fix. {@code main} prints it without a
 * stack trace (unless {@code --verbose}) and exits with {@link #EXIT_CODE}; nothing is launched.
 */
public class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Exit code for bad input. */
    public static final int EXIT_CODE = 2;

    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
