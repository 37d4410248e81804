package org.troika.launcher.elastic;

import java.util.List;
import java.util.Objects;
import org.troika.launcher.spi.HostPlan;

/**
 * One generation of an elastic job: one launch of all ranks over one host set (a static plan).
 *
 * @param id 1 for the first launch, then counting up
 * @param reason why this generation started
 * @param plan the hosts (oldest first, so rank 0 is on the oldest surviving host) and the rank table
 */
public record Generation(int id, Reason reason, HostPlan plan) {
    /** Why a generation started. */
    public enum Reason {
        /** the job's first launch */
        START,
        /** the ranks left the previous generation at a commit because the hosts changed (no work lost) */
        HOSTS_UPDATED,
        /** a rank of the previous generation failed; ranks restore the last commit */
        FAILURE
    }

    public Generation {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(plan, "plan");
        if (id < 1) {
            throw new IllegalArgumentException("generation ids start at 1, got " + id);
        }
    }

    /** World size. */
    public int size() {
        return plan.size();
    }

    /** Host names in rank order. */
    public List<String> hostNames() {
        return plan.hostNames();
    }
}
