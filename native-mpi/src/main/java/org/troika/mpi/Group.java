package org.troika.mpi;

import java.util.Objects;
import org.troika.mpi.spi.NativeMpi;

/**
 * An ordered set of processes ({@code MPI_Group}), from {@link Communicator#group()}: subsets by rank, rank
 * translation between groups, and {@link Communicator#create(Group)} to make a communicator of them. Close it when
 * done ({@code MPI_Group_free}).
 */
public final class Group implements AutoCloseable {
    private final NativeMpi mpi;
    private final long handle;
    private boolean freed;

    Group(NativeMpi mpi, long handle) {
        this.mpi = mpi;
        this.handle = handle;
    }

    long handle() {
        checkOpen();
        return handle;
    }

    public int size() {
        return mpi.groupSize(handle());
    }

    /** This process's rank in the group, or {@link Communicator#UNDEFINED} when it is not a member. */
    public int rank() {
        return mpi.groupRank(handle());
    }

    /** {@code MPI_Group_incl}: the listed ranks of this group, in that order. */
    public Group incl(int... ranks) {
        checkRanks(ranks);
        return new Group(mpi, mpi.groupIncl(handle(), ranks.clone()));
    }

    /** {@code MPI_Group_excl}: this group without the listed ranks. */
    public Group excl(int... ranks) {
        checkRanks(ranks);
        return new Group(mpi, mpi.groupExcl(handle(), ranks.clone()));
    }

    /** {@code MPI_Group_translate_ranks}: where {@code ranks} of this group sit in {@code other} (or UNDEFINED). */
    public int[] translateRanks(int[] ranks, Group other) {
        Objects.requireNonNull(ranks, "ranks");
        int n = size();
        for (int r : ranks) {
            if (r < 0 || r >= n) {
                throw new IllegalArgumentException("rank " + r + " is not in this group of " + n);
            }
        }
        return mpi.groupTranslateRanks(handle(), ranks.clone(), Objects.requireNonNull(other, "other").handle());
    }

    @Override
    public void close() {
        if (!freed) {
            freed = true;
            mpi.groupFree(handle);
        }
    }

    private void checkOpen() {
        if (freed) {
            throw new IllegalStateException("this group was closed");
        }
    }

    private void checkRanks(int[] ranks) {
        Objects.requireNonNull(ranks, "ranks");
        int n = size();
        boolean[] seen = new boolean[n];
        for (int r : ranks) {
            if (r < 0 || r >= n) {
                throw new IllegalArgumentException("rank " + r + " is not in this group of " + n);
            }
            if (seen[r]) {
                throw new IllegalArgumentException("rank " + r + " is listed twice");
            }
            seen[r] = true;
        }
    }
}
