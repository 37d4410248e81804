package org.troika.launcher.elastic;

/**
 * How the usable host set changed between two discoveries. The {@link #bits()} are the wire value announced to
 * ranks: removed = 1, added = 2, both = 3.
 */
public enum HostUpdate {
    /** Same hosts with the same slots. */
    NONE(0),
    /** A host vanished or lost slots. */
    REMOVED(1),
    /** A host appeared (or came back from the blacklist) or gained slots. */
    ADDED(2),
    /** Both. */
    MIXED(3);

    private final int bits;

    HostUpdate(int bits) {
        this.bits = bits;
    }

    public int bits() {
        return bits;
    }

    public static HostUpdate of(boolean added, boolean removed) {
        return added ? (removed ? MIXED : ADDED) : (removed ? REMOVED : NONE);
    }

    public boolean added() {
        return (bits & ADDED.bits) != 0;
    }

    public boolean removed() {
        return (bits & REMOVED.bits) != 0;
    }
}
