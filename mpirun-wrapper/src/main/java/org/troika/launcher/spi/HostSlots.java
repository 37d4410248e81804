package org.troika.launcher.spi;

/**
 * One host and its slot count, as given by {@code -H}, a hostfile, a discovery script or an allocation.
 *
 * <p>The constructor enforces {@link HostCheck}'s rules (with {@link IllegalArgumentException}, a programming error:
 * sources check user input with {@link HostCheck} first, which names the source in a one-line usage error).
 *
 * @param name host name or address as the MPI launcher will see it (see {@link HostCheck#nameProblem})
 * @param slots number of ranks this host may run (1 to {@link HostCheck#MAX_RANKS})
 * @param maxSlots upper bound from a hostfile's {@code max_slots=}, or 0 when not given
 */
public record HostSlots(String name, int slots, int maxSlots) {
    public HostSlots {
        String problem = HostCheck.nameProblem(name);
        if (problem != null) {
            throw new IllegalArgumentException("host name " + UserText.quote(name) + " " + problem);
        }
        if (slots < 1 || slots > HostCheck.MAX_RANKS) {
            throw new IllegalArgumentException("host " + name + " needs 1 to " + HostCheck.MAX_RANKS + " slots, got "
                    + slots);
        }
        if (maxSlots != 0 && (maxSlots < slots || maxSlots > HostCheck.MAX_RANKS)) {
            throw new IllegalArgumentException("host " + name + " max_slots " + maxSlots + " is not within "
                    + slots + ".." + HostCheck.MAX_RANKS);
        }
    }

    public HostSlots(String name, int slots) {
        this(name, slots, 0);
    }

    public HostSlots withSlots(int n) {
        return new HostSlots(name, n, maxSlots == 0 ? 0 : Math.max(maxSlots, n));
    }

    /** {@code name:slots}, the {@code -H} form. */
    @Override
    public String toString() {
        return name + ":" + slots;
    }
}
