package org.troika.rsh.agent;

import java.util.HexFormat;
import java.util.regex.Pattern;
import org.troika.common.UsageException;
import org.troika.wire.Secret;

/**
 * The launch agent's key: HMAC-SHA256(job secret, {@code "troika-agent-v1/" + label}), with a random label per relay
 * session (one elastic generation or one static launch). Launch agents ({@code troika-rsh HOST WORDS}) and the
 * daemons that tree-spawn them get only this key, never the job secret, and it opens only two doors, each once:
 *
 * <ul>
 *   <li>the driver answers one {@code Lookup} per expected host with it; once every host has been looked up, the
 *       driver refuses the key and tells every task service to delete its copy ({@code AgentKeySpent});</li>
 *   <li>each task service runs one {@code Exec} with it (its host's daemon) and refuses the key after that.</li>
 * </ul>
 *
 * Open MPI starts every daemon (tree spawn included) and waits for all of them before it starts a rank, so by the time
 * a rank runs the key is spent everywhere and its files are gone. The label is not a secret (it is on the task
 * service's command line); without the job secret it gives nothing.
 */
public final class AgentKey {
    /** Derivation label prefix; bump the version on any change of what the key may do. */
    static final String PREFIX = "troika-agent-v1/";
    private static final Pattern LABEL = Pattern.compile("[0-9a-f]{16,64}");

    private AgentKey() {}

    /** A fresh random label (128 bits, hex). */
    public static String newLabel() {
        byte[] b = new byte[16];
        new java.security.SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** The agent key of {@code label} under {@code job}. */
    public static Secret derive(Secret job, String label) {
        return job.derive(PREFIX + checkLabel(label));
    }

    /** {@code label} if it looks like one of {@link #newLabel()}'s, else a usage error. */
    public static String checkLabel(String label) {
        if (label == null || !LABEL.matcher(label).matches()) {
            throw new UsageException("--agent-label '" + label + "' is not 16-64 lowercase hex digits");
        }
        return label;
    }
}
