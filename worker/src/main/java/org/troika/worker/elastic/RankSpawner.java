package org.troika.worker.elastic;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import org.troika.common.SpawnCommand;
import org.troika.common.TroikaEnv;
import org.troika.mpi.Spawn;
import org.troika.wire.ElasticMessage;

/**
 * How the ranks of a running world start new ranks for a change in place (pure): the rank command mpirun started
 * ({@link TroikaEnv#ELASTIC_SPAWN_COMMAND}), the exported environment ({@link TroikaEnv#ELASTIC_SPAWN_ENV} names, the
 * spawning rank's values), and Open MPI 5's info keys: {@code PMIX_ADD_HOST} for hosts the job has no daemon on yet,
 * {@code host} for where each rank goes (in the change's order), {@code PMIX_ENVAR} for the environment (one
 * {@code NAME=value} per line). Spawned ranks also get {@link TroikaEnv#ELASTIC_JOIN_ID} and
 * {@link TroikaEnv#ELASTIC_EPOCH}, and {@link TroikaEnv#HOSTS} of their own placement (troika-rankenv's host and local
 * rank). The hang watchdog's address and key have no room here: they come with their host's file of mpirun's exports
 * ({@link TroikaEnv#SPAWN_ENV_FILE}), and the ranks report under their ids in the generation.
 *
 * @param command the rank command's words (bytes)
 * @param exported the exported variables with this rank's values (lossless strings), in order
 */
record RankSpawner(List<byte[]> command, Map<String, String> exported) {
    /**
     * Longest {@code PMIX_ENVAR} value: Open MPI 5.0.7's {@code MPI_MAX_INFO_VAL} is 256 with the terminating NUL, so
     * {@code MPI_Info_set} takes 255 bytes and refuses 256 with {@code MPI_ERR_INFO_VALUE} (measured: a C program in
     * the Open MPI 5 root, 250-255 bytes set, 256-260 refused). At 256 every growth in a CI checkout, whose paths are
     * longer, fell back to a relaunch.
     */
    static final int ENVAR_LIMIT = 255;

    /**
     * What a spawned rank needs most of its parent's exports: its job, generation and fault tolerance, then where it
     * reports its leave ({@link TroikaEnv#WORKER_ADDR}: the generation's notifier, which a growth in place keeps; the
     * worker key file is in the environment of the rank's daemon, started by its host's task service). Without that
     * address a spawned rank reported nothing, and the launcher had to guess its exit from the others' (ShrinkTracker).
     */
    private static final List<String> FIRST = TroikaEnv.GENERATION_SHARED;

    /** Variables a spawned rank must not inherit from its parent. */
    private static final List<String> NOT_INHERITED = List.of(TroikaEnv.HOSTS, TroikaEnv.HOST_SLOTS,
            TroikaEnv.PROGRESS_ADDR, TroikaEnv.PROGRESS_KEY, TroikaEnv.ELASTIC_JOIN_ID, TroikaEnv.ELASTIC_EPOCH,
            TroikaEnv.ELASTIC_SPAWN_COMMAND, TroikaEnv.ELASTIC_SPAWN_ENV, TroikaEnv.ELASTIC_SPAWN_LOCALS,
            TroikaEnv.ELASTIC_SPAWN_BASE, "TROIKA_RANK", "TROIKA_SIZE", "TROIKA_LOCAL_RANK", "TROIKA_LOCAL_SIZE",
            "TROIKA_CROSS_RANK", "TROIKA_CROSS_SIZE", "TROIKA_HOSTNAME");

    /** {@code s}'s entry of {@link TroikaEnv#ELASTIC_SPAWN_LOCALS}: {@code SIZE:L1.L2}, or {@code -} (from 0). */
    static String localsEntry(ElasticMessage.ChangeWorld.Spawn s) {
        if (s.locals().isEmpty()) {
            return "-";
        }
        StringJoiner l = new StringJoiner(".", s.hostLocalSize() + ":", "");
        s.locals().forEach(x -> l.add(Integer.toString(x)));
        return l.toString();
    }

    /**
     * The spawner the launcher set up for this rank, or empty when the generation cannot grow in place (no
     * {@link TroikaEnv#ELASTIC_SPAWN_COMMAND}, or a bad one).
     *
     * @param env the rank's environment in {@link org.troika.common.exec.NativeText}'s lossless form
     */
    static Optional<RankSpawner> fromEnvironment(Map<String, String> env) {
        String cmd = env.get(TroikaEnv.ELASTIC_SPAWN_COMMAND);
        if (cmd == null || cmd.isBlank()) {
            return Optional.empty();
        }
        List<byte[]> words;
        try {
            words = SpawnCommand.decode(cmd);
        } catch (IllegalArgumentException e) {
            System.err.println("troika elastic: " + e.getMessage() + "; this world cannot grow in place");
            return Optional.empty();
        }
        Map<String, String> exported = new LinkedHashMap<>();
        for (String name : env.getOrDefault(TroikaEnv.ELASTIC_SPAWN_ENV, "").split(",")) {
            String v = env.get(name);
            if (!name.isBlank() && v != null && !NOT_INHERITED.contains(name)) {
                exported.put(name, v);
            }
        }
        return Optional.of(new RankSpawner(words, exported));
    }

    /**
     * The spawn of {@code change}'s ranks, or empty when it cannot be expressed (not even the spawned ranks' own
     * variables fit {@code PMIX_ENVAR}'s {@value #ENVAR_LIMIT} bytes). Of the parent's exports, the job's variables
     * come first, then troika's others, then the user's, as many as fit; one whose value holds a newline, which a
     * line of {@code PMIX_ENVAR} cannot carry, is left out (until stop 53 it made every growth a relaunch).
     *
     * @param epoch the world's change count once this change is made
     */
    Optional<Spawn> request(ElasticMessage.ChangeWorld change, int epoch) {
        return request(change, epoch, -1);
    }

    /**
     * {@link #request(ElasticMessage.ChangeWorld, int)} for a world of {@code sizeBefore} ranks once the change's leaves
     * and activations are made (the spawned ranks are merged after them: world ranks {@code sizeBefore} up), told to
     * the spawned ranks ({@link TroikaEnv#ELASTIC_SPAWN_BASE}); negative: not told.
     */
    Optional<Spawn> request(ElasticMessage.ChangeWorld change, int epoch, int sizeBefore) {
        int count = 0;
        StringJoiner added = new StringJoiner(",");
        StringJoiner hosts = new StringJoiner(",");
        StringJoiner locals = new StringJoiner(",");
        boolean beside = false;
        for (ElasticMessage.ChangeWorld.Spawn s : change.join()) {
            count += s.count();
            String h = s.host() + ":" + s.count();
            hosts.add(h);
            if (s.hostSlots() > 0) {
                added.add(s.host() + ":" + s.hostSlots());
            }
            locals.add(localsEntry(s));
            beside |= !s.locals().isEmpty();
        }
        // the spawned ranks' own variables first, then troika's exported ones, then the user's, as long as they fit
        // into one info value: a spawned rank's daemon was started by its host's task service, so it has that
        // environment (the host's login one) and what this carries, nothing of mpirun's -x exports
        Map<String, String> env = new LinkedHashMap<>();
        env.put(TroikaEnv.ELASTIC_JOIN_ID, Integer.toString(change.firstJoinId()));
        env.put(TroikaEnv.ELASTIC_EPOCH, Integer.toString(epoch));
        env.put(TroikaEnv.HOSTS, hosts.toString());
        if (beside) {
            env.put(TroikaEnv.ELASTIC_SPAWN_LOCALS, locals.toString());
        }
        if (sizeBefore >= 0) {
            env.put(TroikaEnv.ELASTIC_SPAWN_BASE, Integer.toString(sizeBefore));
        }
        int own = env.size(); // the spawned ranks' own variables: without them all, no spawn
        for (String k : FIRST) {
            if (exported.containsKey(k)) {
                env.put(k, exported.get(k));
            }
        }
        exported.forEach((k, v) -> {
            if (k.startsWith("TROIKA_")) {
                env.put(k, v);
            }
        });
        exported.forEach(env::putIfAbsent);
        List<String> lines = new ArrayList<>();
        int length = 0;
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getValue().indexOf('\n') >= 0 || e.getKey().indexOf('\n') >= 0) {
                if (lines.size() < own) {
                    return Optional.empty(); // one of the spawned ranks' own variables (none holds a newline)
                }
                continue; // PMIX_ENVAR's lines cannot carry it: left out, as the host's file of exports leaves it out
            }
            String line = e.getKey() + "=" + e.getValue();
            int more = line.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + (lines.isEmpty() ? 0 : 1);
            if (length + more > ENVAR_LIMIT) {
                if (lines.size() < own) {
                    return Optional.empty(); // not even the spawned ranks' own variables fit
                }
                continue;
            }
            lines.add(line);
            length += more;
        }
        Map<String, String> info = new LinkedHashMap<>();
        if (added.length() > 0) {
            info.put("PMIX_ADD_HOST", added.toString());
        }
        info.put("host", hosts.toString());
        info.put("PMIX_ENVAR", String.join("\n", lines));
        return Optional.of(new Spawn(command, count, info));
    }
}
