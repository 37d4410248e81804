package org.troika.wire;

/**
 * The elastic notification protocol ({@link Protocol#ELASTIC}) between the driver's worker notification service and
 * rank 0 of one generation, keyed with the worker key (never the job secret). Data only ({@link ElasticCodec}).
 *
 * <pre>
 *   rank 0 ── Subscribe(generation) ─►  driver        (at its first commit: the generation got through its rendezvous)
 *          ◄─ Subscribed | Refused ───
 *          ◄─ HostsChanged(t, bits) ... ─             (until the generation ends)
 * </pre>
 */
public sealed interface ElasticMessage {

    /** rank 0 → driver, first frame: rank 0 of {@code generation} listens for host changes. */
    record Subscribe(int generation) implements ElasticMessage {}

    /** driver → rank 0: registered; host changes follow. */
    record Subscribed() implements ElasticMessage {}

    /** driver → rank 0: not this generation's rank 0 (or the service is closing); one line. */
    record Refused(String reason) implements ElasticMessage {}

    /**
     * driver → rank 0: the hosts changed ({@code bits}: removed = 1, added = 2), so the ranks leave together at their
     * next commit.
     */
    record HostsChanged(long timestampMillis, int bits) implements ElasticMessage {}
}
