package org.troika.launcher.mpi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.LaunchContext;
import org.troika.launcher.spi.RunSettings;

/**
 * What every launch backend gives the ranks, whichever program starts them ({@code mpirun}, {@code srun}): the
 * rank environment, the command behind troika's rank-environment wrapper, and the checked NIC settings.
 * Pure functions of the launch context.
 */
public final class RankLaunch {
    /**
     * A {@code TROIKA_HOSTS} value longer than this is not exported (one environment string is limited to 128 KiB),
     * nor planned a {@code TROIKA_HOST_SLOTS} value longer than this.
     */
    public static final int HOSTS_ENV_LIMIT = 96 * 1024;
    /** The rank-environment wrapper, relative to the troika installation. */
    public static final String RANKENV = "bin/troika-rankenv";


    private RankLaunch() {}

    /**
     * The caller's environment without troika's secret, plus the rank variables troika exports,
     * {@code NCCL_IB_DISABLE=1} for --tcp and {@link TroikaEnv#JAVA_CDS} for {@code --java-cds} ({@code 1}) or
     * {@code --no-java-cds} ({@code 0}), which win over the caller's value. The secret goes even from the launcher's own
     * environment because ranks on its host inherit it (the launch agent reads {@link TroikaEnv#SECRET_FILE} instead).
     */
    public static Map<String, String> rankEnv(LaunchContext ctx, List<String> warnings) {
        Map<String, String> env = new TreeMap<>(ctx.env());
        TroikaEnv.stripJobSecret(env);
        env.remove(TroikaEnv.FAULT_TOLERANCE); // set by MpirunCommandBuilder when the launch runs with --with-ft
        env.remove(TroikaEnv.HOSTS); // the caller's, from a job around this one
        env.putAll(placeEnv(ctx.hostPlan()));
        env.put(TroikaEnv.SIZE, Integer.toString(ctx.hostPlan().size()));
        if (ctx.settings().launcher().tcp()) {
            env.put("NCCL_IB_DISABLE", "1");
        }
        if (ctx.settings().launcher().javaCds() != null) {
            env.put(TroikaEnv.JAVA_CDS, ctx.settings().launcher().javaCds() ? "1" : "0");
            if (ctx.settings().launcher().javaCds() && ctx.troikaHome() == null) {
                warnings.add("--java-cds works through troika's rank wrapper " + RANKENV + ", which this troika (not"
                        + " run from its distribution) does not have; the ranks run without class-data sharing");
            }
        }
        return env;
    }

    /**
     * What gives each rank its place among the hosts: {@link TroikaEnv#HOST_SLOTS} (the slot counts, run-length
     * encoded: constant for a cluster of equal hosts) always, and {@link TroikaEnv#HOSTS} (the names) while it is at
     * most {@link #HOSTS_ENV_LIMIT} long; beyond that, ranks name their host by {@code hostname}.
     *
     * @throws UsageException if the slot counts change so often along the host list that even their run-length form
     *     is longer than {@link #HOSTS_ENV_LIMIT}
     */
    public static Map<String, String> placeEnv(HostPlan plan) {
        Map<String, String> env = new TreeMap<>();
        String layout = plan.layout();
        if (layout.length() > HOSTS_ENV_LIMIT) {
            throw new UsageException("the " + plan.hosts().size() + " hosts of " + plan.source() + " change their slot"
                    + " count " + layout.chars().filter(c -> c == ',').count() + " times along the list, too often to"
                    + " give ranks their place in " + HOSTS_ENV_LIMIT / 1024 + " KiB of " + TroikaEnv.HOST_SLOTS
                    + "; list hosts with the same slots next to each other");
        }
        env.put(TroikaEnv.HOST_SLOTS, layout);
        String hostList = plan.hostList();
        if (hostList.length() <= HOSTS_ENV_LIMIT) {
            env.put(TroikaEnv.HOSTS, hostList);
        }
        return env;
    }

    /** The user's command, behind troika's rank-environment wrapper when troika is installed. */
    public static List<String> rankCommand(LaunchContext ctx) {
        List<String> cmd = new ArrayList<>();
        if (ctx.troikaHome() != null) {
            cmd.add(ctx.troikaHome().resolve(RANKENV).toString());
        }
        cmd.addAll(ctx.settings().command());
        return cmd;
    }

    /** Where the spawn command finds {@code env} (POSIX's utility; this path on every Linux distribution). */
    static final String ENV_COMMAND = "/usr/bin/env";

    /**
     * The command a running world spawns onto added hosts (issue 25's growth in place): {@link #rankCommand}, behind
     * {@code /usr/bin/env NAME=value...} for the switches troika sets for its rank wrapper and the ranks themselves
     * ({@link TroikaEnv#JAVA_CDS} where the wrapper is, {@code NCCL_IB_DISABLE}), as {@code env} has them. A spawned
     * rank's daemon was started by its host's task service, so mpirun's {@code -x} exports do not reach it, and what
     * it gets of its parent's environment is one info value of 255 bytes (the worker's {@code RankSpawner}), which
     * these switches did not fit after the job's own variables: spawned ranks ran without class-data sharing (measured
     * in bench/elastic-inplace.sh's growths). argv has no such bound, and neither switch is a secret.
     */
    public static List<String> spawnCommand(LaunchContext ctx, Map<String, String> env) {
        List<String> cmd = new ArrayList<>();
        String cds = env.get(TroikaEnv.JAVA_CDS);
        if (cds != null && ctx.troikaHome() != null) {
            cmd.add(TroikaEnv.JAVA_CDS + "=" + cds);
        }
        String ib = env.get("NCCL_IB_DISABLE");
        if (ib != null) {
            cmd.add("NCCL_IB_DISABLE=" + ib);
        }
        if (!cmd.isEmpty()) {
            cmd.add(0, ENV_COMMAND);
        }
        cmd.addAll(rankCommand(ctx));
        return cmd;
    }

    /**
     * The content of {@link TroikaEnv#SPAWN_ENV_FILE} for a launch whose environment is {@code launchEnv} (mpirun's,
     * as planned): one {@code NAME=value} line per variable {@link TroikaEnv#ELASTIC_SPAWN_ENV} names, with
     * {@code launchEnv}'s value, in the platform's bytes: troika's first ({@link #SPAWN_FILE_OWN}, the only ones of
     * troika's: a spawned rank gets those of its change with the spawn, whose 255 bytes have no room for all of these),
     * then the rest in that order. Left out: names {@code -x} cannot carry
     * ({@link EnvExport#isMpiOwned}), values holding a newline or NUL (one line each), and lines that would take the
     * file past {@link #SPAWN_ENV_LIMIT} bytes (one relay frame holds 1 MiB). {@code null} when the launch spawns
     * nothing or nothing is left.
     */
    public static byte[] spawnEnvironmentFile(Map<String, String> launchEnv) {
        String names = launchEnv.get(TroikaEnv.ELASTIC_SPAWN_ENV);
        if (names == null || !launchEnv.containsKey(TroikaEnv.ELASTIC_SPAWN_COMMAND)) {
            return null;
        }
        List<String> ordered = new ArrayList<>();
        for (String name : names.split(",")) {
            if (SPAWN_FILE_OWN.contains(name)) {
                ordered.add(0, name);
            } else if (!name.startsWith("TROIKA_")) {
                ordered.add(name);
            }
        }
        java.io.ByteArrayOutputStream file = new java.io.ByteArrayOutputStream();
        for (String name : ordered) {
            String v = launchEnv.get(name);
            if (v == null || EnvExport.isMpiOwned(name) || v.indexOf('\n') >= 0 || v.indexOf('\0') >= 0) {
                continue;
            }
            byte[] line = org.troika.common.exec.NativeText.encode(name + "=" + v + "\n");
            if (file.size() + line.length <= SPAWN_ENV_LIMIT) {
                file.writeBytes(line);
            }
        }
        return file.size() == 0 ? null : file.toByteArray();
    }

    /**
     * troika's variables {@link TroikaEnv#SPAWN_ENV_FILE} carries (bin/troika-rankenv exports these of troika's names
     * only): where and how a spawned rank reports its progress to the generation's hang watchdog, which watches it
     * once it joined the world, and {@link TroikaEnv#GENERATION_SHARED}, which the spawn itself also carries where its
     * 255 bytes have room (a spawn onto two hosts had none left for the driver's address: its ranks neither reported
     * to the launcher nor could listen to the driver as the world's rank 0, until stop 54).
     */
    public static final java.util.Set<String> SPAWN_FILE_OWN = java.util.Set.copyOf(java.util.stream.Stream.concat(
            java.util.stream.Stream.of(TroikaEnv.PROGRESS_ADDR, TroikaEnv.PROGRESS_KEY, TroikaEnv.PROGRESS_INTERVAL_MS),
            TroikaEnv.GENERATION_SHARED.stream()).toList());

    /** Most bytes of {@link TroikaEnv#SPAWN_ENV_FILE} (a relay frame's body holds 1 MiB). */
    static final int SPAWN_ENV_LIMIT = 512 * 1024;

    /** NCCL takes interface names (prefixes), not subnets: subnets are left out with a warning. */
    public static String ncclInterfaces(List<String> nics, List<String> warnings) {
        List<String> names = new ArrayList<>();
        for (String nic : nics) {
            if (RunSettings.Remote.isSubnet(nic)) {
                warnings.add("NCCL_SOCKET_IFNAME takes interface names, so subnet " + nic + " is used for MPI only");
            } else {
                names.add(nic);
            }
        }
        return names.isEmpty() ? null : String.join(",", names);
    }
}
