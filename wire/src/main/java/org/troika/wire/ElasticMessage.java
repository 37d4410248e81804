package org.troika.wire;

import java.util.List;
import java.util.Objects;

/**
 * The elastic protocol ({@link Protocol#ELASTIC}) between the driver's worker notification service and the ranks of
 * one generation, keyed with the worker key (never the job secret). Data only ({@link ElasticCodec}).
 *
 * <pre>
 *   rank 0 ── Subscribe(generation, id) ─►  driver    (at its first commit: the generation got through its rendezvous;
 *                                                     a later rank 0 of a world whose rank 0 died or left, at once)
 *          ◄─ Subscribed | Refused ───
 *          ◄─ HostsChanged(t, bits) ... ─             (until the generation ends)
 *          ◄─ ChangeWorld(leave, join) ... ─          (a change in place, where the MPI can: issue 25)
 *
 *   a rank ── WorldChanged | RankLeft ─►  driver      (rank events: what the launcher learns about the world in place
 *          ◄─ Noted | Refused ─────────               of rank output; one event, one answer, on the rank's connection)
 * </pre>
 *
 * <p>Ranks are named by their <b>id in the generation</b>: the launch rank (mpirun's rank) of every rank the launch
 * started; a rank spawned into the running world later (grow by spawn) gets an id from the generation's size upwards,
 * announced with its host in {@link WorldChanged#joined()}.
 */
public sealed interface ElasticMessage {

    /**
     * rank 0 → driver, first frame: rank 0 of {@code generation}'s world, the rank with id {@code rank} in the
     * generation, listens for host changes. The launch's rank 0 (id 0) first; when it dies or leaves in place, the
     * world's next rank 0 takes over, and the latest subscription is the one that listens.
     */
    record Subscribe(int generation, int rank) implements ElasticMessage {}

    /** driver → rank 0: registered; host changes follow. */
    record Subscribed() implements ElasticMessage {}

    /** driver → rank 0: not this generation's rank 0 (or the service is closing); one line. */
    record Refused(String reason) implements ElasticMessage {}

    /**
     * driver → rank 0: the hosts changed ({@code bits}: removed = 1, added = 2), so the ranks leave together at their
     * next commit.
     */
    record HostsChanged(long timestampMillis, int bits) implements ElasticMessage {}

    /**
     * driver → rank 0: change the world in place at the ranks' next commit instead of ending the generation (issue 25:
     * Open MPI 5): the ranks with the ids in {@code leave} leave it (their hosts left the job), then the survivors
     * spawn {@code join}'s ranks onto their hosts and merge with them; the spawned ranks get the ids from
     * {@code firstJoinId} up, in {@code join}'s order. The new rank 0 reports the result as a {@link WorldChanged}.
     * The ranks may answer a change they cannot make by leaving the generation (as for {@link HostsChanged}).
     *
     * <p>Standby ranks (a launch with {@code troika run --standby-ranks}: a rank started on a standby host that waits
     * outside the world) join by {@code activate}: after the leaves and before the spawns, each named one is merged into
     * the world, in {@code activate}'s order, under the id it had in the launch.
     *
     * @param change the request's number in this generation, from 1
     */
    record ChangeWorld(int change, List<Integer> leave, List<Spawn> join, int firstJoinId, List<Activate> activate)
            implements ElasticMessage {
        public ChangeWorld {
            leave = List.copyOf(leave);
            join = List.copyOf(join);
            activate = List.copyOf(activate);
        }

        /** A change that activates no standby rank. */
        public ChangeWorld(int change, List<Integer> leave, List<Spawn> join, int firstJoinId) {
            this(change, leave, join, firstJoinId, List.of());
        }

        /** Whether ranks join the world (spawned or activated). */
        public boolean grows() {
            return !join.isEmpty() || !activate.isEmpty();
        }

        /** The standby rank with launch rank {@code id}, waiting on {@code host}, joins the world. */
        public record Activate(String host, int id) {
            public Activate {
                Objects.requireNonNull(host, "host");
            }
        }

        /**
         * {@code count} ranks spawned onto {@code host}.
         *
         * @param hostSlots the slots the MPI is told the host has for this spawn (Open MPI 5: {@code PMIX_ADD_HOST
         *     host:hostSlots}, which sets a host's slot count, its running processes included), at least {@code
         *     count}; 0 to tell it nothing (the MPI places the ranks within the slots it knows)
         * @param locals the spawned ranks' local ranks on the host, in their order: the smallest ones no process of
         *     the world there holds (a spawn next to running ranks); empty for {@code 0..count-1}
         * @param localSize how many of the world's processes the host runs once they joined ({@code TROIKA_LOCAL_SIZE});
         *     0 for {@code count}
         */
        public record Spawn(String host, int count, int hostSlots, List<Integer> locals, int localSize) {
            public Spawn {
                Objects.requireNonNull(host, "host");
                locals = List.copyOf(locals);
                String problem = problem(count, hostSlots, locals, localSize);
                if (problem != null) {
                    throw new IllegalArgumentException(problem + " onto " + host);
                }
            }

            /** A spawn onto a host where the spawned ranks are the only ones (local ranks from 0). */
            public Spawn(String host, int count, int hostSlots) {
                this(host, count, hostSlots, List.of(), 0);
            }

            /** The host's local size once the spawned ranks joined: {@code localSize}, or {@code count} for 0. */
            public int hostLocalSize() {
                return hostLocalSize(count, localSize);
            }

            private static int hostLocalSize(int count, int localSize) {
                return localSize == 0 ? count : localSize;
            }

            /** What is wrong with a spawn of these values, or {@code null}: the one rule for messages and decoders. */
            public static String problem(int count, int hostSlots, List<Integer> locals, int localSize) {
                if (count < 1 || (hostSlots != 0 && hostSlots < count)) {
                    return "a spawn of " + count + " rank(s) with host slots " + hostSlots;
                }
                if (!locals.isEmpty() && locals.size() != count) {
                    return "a spawn of " + count + " rank(s) with " + locals.size() + " local ranks";
                }
                int below = hostLocalSize(count, localSize);
                if (localSize != 0 && localSize < count) {
                    return "a spawn of " + count + " rank(s) onto a host of " + localSize + " local ranks";
                }
                java.util.Set<Integer> seen = new java.util.HashSet<>();
                for (int l : locals) {
                    if (l < 0 || l >= below || !seen.add(l)) {
                        return "local ranks " + locals + " of a host of " + below;
                    }
                }
                return null;
            }
        }
    }

    /**
     * a rank → driver: the generation's world changed in place, without a relaunch; sent by rank 0 of the new world.
     *
     * @param epoch the change's number in this generation, from 1 (every member counts the changes it went through
     *     alike); reports of successive changes may come from different ranks over different connections, so one
     *     whose epoch is not above the last one seen is stale
     * @param members the ids of the ranks that form the world now, in their new rank order
     * @param departed the ids that left the world on purpose (shrink by split); a rank of the world before that is
     *     neither a member nor departed died (shrink by ULFM)
     * @param joined the ranks spawned into the world (grow by spawn), each with its id and host
     */
    record WorldChanged(int generation, int epoch, List<Integer> members, List<Integer> departed, List<Joined> joined)
            implements ElasticMessage {
        public WorldChanged {
            members = List.copyOf(members);
            departed = List.copyOf(departed);
            joined = List.copyOf(joined);
        }

        /** A rank spawned into the world: its id in the generation and the host it runs on. */
        public record Joined(int rank, String host) {
            public Joined {
                Objects.requireNonNull(host, "host");
            }
        }
    }

    /**
     * a rank → driver: the rank with id {@code rank} leaves the elastic run with {@code code} (its process exits
     * next). The driver answers {@link Noted} once it recorded it, so the event is known before the rank's process
     * (and so mpirun) ends.
     */
    record RankLeft(int generation, int rank, int code) implements ElasticMessage {}

    /** driver → a rank: its event is recorded. */
    record Noted() implements ElasticMessage {}

    /**
     * driver → a rank, as a datagram ({@link Datagrams}): the event that came as datagram {@code seq} of sender
     * {@code sender} is recorded (a {@link RankLeft} comes as a datagram: the launcher holds no connection per rank).
     */
    record NotedDatagram(long sender, long seq) implements ElasticMessage {}
}
