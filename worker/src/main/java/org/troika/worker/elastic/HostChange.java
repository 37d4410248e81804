package org.troika.worker.elastic;

/**
 * A host change announced by the driver.
 *
 * @param timestampMillis when the driver saw it (wall clock, for logs and to merge announcements)
 * @param added hosts (or slots) were added
 * @param removed hosts (or slots) were removed
 */
public record HostChange(long timestampMillis, boolean added, boolean removed) {
    public HostChange {
        if (!added && !removed) {
            throw new IllegalArgumentException("a host change adds or removes something");
        }
    }

    /** Wire bits, as the driver's {@code HostUpdate}: removed = 1, added = 2. */
    public int bits() {
        return (removed ? 1 : 0) | (added ? 2 : 0);
    }

    /** The change with these bits, or {@code null} for 0. */
    public static HostChange fromBits(long timestampMillis, int bits) {
        if ((bits & ~3) != 0) {
            throw new IllegalArgumentException("bad host change bits " + bits);
        }
        return bits == 0 ? null : new HostChange(timestampMillis, (bits & 2) != 0, (bits & 1) != 0);
    }

    /** Both changes in one (flags or-ed, the later timestamp). */
    public HostChange merge(HostChange other) {
        return new HostChange(Math.max(timestampMillis, other.timestampMillis), added || other.added,
                removed || other.removed);
    }
}
