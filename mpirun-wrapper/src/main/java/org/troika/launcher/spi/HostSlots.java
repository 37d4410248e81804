package org.troika.launcher.spi;

import java.util.regex.Pattern;

/**
 * One host and its slot count, as given by {@code -H}, a hostfile, a discovery script or an allocation.
 *
 * @param name host name or address as the MPI launcher will see it (no {@code :})
 * @param slots number of ranks this host may run (at least 1)
 * @param maxSlots upper bound from a hostfile's {@code max_slots=}, or 0 when not given
 */
public record HostSlots(String name, int slots, int maxSlots) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");

    public HostSlots {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bad host name '" + name + "'");
        }
        if (slots < 1) {
            throw new IllegalArgumentException("host " + name + " needs at least 1 slot, got " + slots);
        }
        if (maxSlots != 0 && maxSlots < slots) {
            throw new IllegalArgumentException("host " + name + " max_slots " + maxSlots + " < slots " + slots);
        }
    }

    public HostSlots(String name, int slots) {
        this(name, slots, 0);
    }

    /** Whether {@code s} is a valid host name for troika (letters, digits, {@code _ . -}). */
    public static boolean isValidName(String s) {
        return s != null && NAME.matcher(s).matches();
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
