package org.troika.wire;

/**
 * The progress protocol ({@link Protocol#PROGRESS}) of troika's hang watchdog: ranks report to the launcher's progress
 * service, keyed with the progress key (derived from the job secret; never the secret itself), each report one UDP datagram
 * ({@link Datagrams}). Data only ({@link ProgressCodec}). Simple enough for ranks in any language
 * (docs/operability.md has it byte by byte).
 *
 * <pre>
 *   rank ── Report(text) ─► launcher   (the first when the rank starts, then whenever its progress moved)
 * </pre>
 * Nothing is sent back.
 */
public sealed interface ProgressMessage {
    /**
     * rank → launcher: its progress, {@code progress 1 rank=R gen=G beats=B commits=C in=E out=L at=X where=...}
     * (troika-common's {@code ProgressReport} reads and writes it).
     */
    record Report(String text) implements ProgressMessage {}
}
