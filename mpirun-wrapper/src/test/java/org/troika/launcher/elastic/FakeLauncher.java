package org.troika.launcher.elastic;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.troika.common.ElasticExitCodes;
import org.troika.launcher.spi.SlotInfo;

/**
 * A generation launcher without processes. Each generation follows a {@link Behaviour} (by generation id, else
 * the default): on every {@code awaitEnd} the fake clock advances by the timeout and the behaviour decides
 * whether the generation has ended.
 */
final class FakeLauncher implements GenerationLauncher {
    /** Decides, at each poll, whether a generation has ended and how. */
    @FunctionalInterface
    interface Behaviour {
        Optional<GenerationResult> poll(Run run);

        /** This behaviour, or {@code other} if this one does not end the generation at this poll. */
        default Behaviour orElse(Behaviour other) {
            return run -> {
                Optional<GenerationResult> r = poll(run);
                return r.isPresent() ? r : other.poll(run);
            };
        }
    }

    /** One launched generation as the fake sees it. */
    final class Run implements RunningGeneration {
        final Generation generation;
        final long startMillis;
        final List<HostUpdate> announcements = new ArrayList<>();
        final List<Long> announcedAtMillis = new ArrayList<>();
        /** The changes in place this generation took, in order. */
        final List<WorldChange> changes = new ArrayList<>();
        private final Behaviour behaviour;

        Run(Generation generation, Behaviour behaviour) {
            this.generation = generation;
            this.behaviour = behaviour;
            this.startMillis = clock.millis();
        }

        long elapsedMillis() {
            return clock.millis() - startMillis;
        }

        @Override
        public Optional<GenerationResult> awaitEnd(Duration timeout) {
            clock.advance(timeout);
            return behaviour.poll(this);
        }

        @Override
        public void announce(HostUpdate update) {
            announcements.add(update);
            announcedAtMillis.add(clock.millis());
        }

        @Override
        public World.InPlace inPlace() {
            return inPlace;
        }

        @Override
        public boolean changeInPlace(WorldChange change) {
            if (!takesChanges) {
                return false;
            }
            changes.add(change);
            waiting = change.waitingAfter(waiting);
            return true;
        }

        /** The launch's standby ranks ({@link FakeLauncher#standby}) that no change activated yet. */
        private Map<String, List<Integer>> waiting = standby;

        @Override
        public Map<String, List<Integer>> standbyRanks() {
            return waiting;
        }

        /** The world now: the plan's, changed by the changes taken. */
        World world() {
            return changes.isEmpty() ? World.of(generation.plan()) : changes.get(changes.size() - 1).target();
        }

        /** Every rank of the world now exits with {@code code}; the world's hosts hold the commit. */
        GenerationResult worldExits(int code) {
            List<RankExit> exits = new ArrayList<>();
            for (World.Member m : world().members()) {
                exits.add(new RankExit(m.id(), m.host(), code, false));
            }
            return new GenerationResult(exits, true).withHolders(world().hostNames());
        }

        /** The rank with {@code id} fails first; the others of the world now are torn down. */
        GenerationResult worldFails(int id, int code) {
            List<RankExit> exits = new ArrayList<>();
            for (World.Member m : world().members()) {
                if (m.id() == id) {
                    exits.add(0, new RankExit(m.id(), m.host(), code, false));
                } else {
                    exits.add(new RankExit(m.id(), m.host(), 143, true));
                }
            }
            return new GenerationResult(exits, true).withHolders(world().hostNames());
        }

        /** Every rank exits with {@code code}. */
        GenerationResult allExit(int code, boolean rendezvous) {
            List<RankExit> exits = new ArrayList<>();
            for (SlotInfo s : generation.plan().slots()) {
                exits.add(new RankExit(s.rank(), s.host(), code, false));
            }
            return new GenerationResult(exits, rendezvous);
        }

        /** {@code rank} exits with {@code code} first; the launcher then tears down every other rank. */
        GenerationResult oneFails(int rank, int code, boolean rendezvous) {
            List<RankExit> exits = new ArrayList<>();
            SlotInfo failed = generation.plan().slots().get(rank);
            exits.add(new RankExit(rank, failed.host(), code, false));
            for (SlotInfo s : generation.plan().slots()) {
                if (s.rank() != rank) {
                    exits.add(new RankExit(s.rank(), s.host(), 143, true));
                }
            }
            return new GenerationResult(exits, rendezvous);
        }
    }

    private final FakeClock clock;
    private final Map<Integer, Behaviour> byGeneration = new HashMap<>();
    private Behaviour fallback = leaveOnAnnouncement();
    final List<Run> runs = new ArrayList<>();
    private World.InPlace inPlace = World.InPlace.NONE;
    private boolean takesChanges = true;

    /** Generations say they can change in place as {@code can} says (and take changes unless {@link #refusing}). */
    FakeLauncher inPlace(World.InPlace can) {
        this.inPlace = can;
        return this;
    }

    private Map<String, List<Integer>> standby = Map.of();

    /** Generations start with these standby ranks (host: ids), as a launch with --standby-ranks. */
    FakeLauncher standby(Map<String, List<Integer>> ranks) {
        this.standby = Map.copyOf(ranks);
        return this;
    }

    /** Generations claim the capability but refuse every change (a launcher that cannot ready a host). */
    FakeLauncher refusing() {
        this.takesChanges = false;
        return this;
    }

    FakeLauncher(FakeClock clock) {
        this.clock = clock;
    }

    FakeLauncher on(int generationId, Behaviour b) {
        byGeneration.put(generationId, b);
        return this;
    }

    FakeLauncher otherwise(Behaviour b) {
        fallback = b;
        return this;
    }

    /** Every host list the driver asked to keep ready ({@link #hostsChanged}), in order. */
    final List<List<String>> served = new ArrayList<>();

    @Override
    public void hostsChanged(List<String> hosts) {
        served.add(List.copyOf(hosts));
    }

    @Override
    public RunningGeneration launch(Generation generation) {
        Run run = new Run(generation, byGeneration.getOrDefault(generation.id(), fallback));
        runs.add(run);
        return run;
    }

    Generation generation(int id) {
        return runs.get(id - 1).generation;
    }

    /** Once a host update was announced, every rank leaves cleanly at its next commit. */
    static Behaviour leaveOnAnnouncement() {
        return run -> run.announcements.isEmpty() ? Optional.empty()
                : Optional.of(run.allExit(ElasticExitCodes.HOSTS_UPDATED, true));
    }

    /** Every rank finishes the body after {@code millis}. */
    static Behaviour succeedAfter(long millis) {
        return run -> run.elapsedMillis() >= millis ? Optional.of(run.allExit(0, true)) : Optional.empty();
    }

    /** {@code rank} fails with {@code code} after {@code millis}; the rest are torn down. */
    static Behaviour failAfter(long millis, int rank, int code, boolean rendezvous) {
        return run -> run.elapsedMillis() >= millis ? Optional.of(run.oneFails(rank, code, rendezvous))
                : Optional.empty();
    }
}
