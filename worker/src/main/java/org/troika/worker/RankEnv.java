package org.troika.worker;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.troika.common.RankTable;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;

/**
 * A rank's place in the job, read from the environment its launcher set, without initialising MPI.
 *
 * <p>Each value comes from the first variable present, in this order:
 * <ol>
 *   <li>troika's own ({@code TROIKA_RANK}, {@code TROIKA_SIZE}, {@code TROIKA_LOCAL_RANK}, ... see {@link TroikaEnv});</li>
 *   <li>Open MPI's ({@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE});</li>
 *   <li>Hydra's (MPICH, Intel MPI: {@code PMI_RANK}, {@code PMI_SIZE}, {@code MPI_LOCALRANKID}, {@code MPI_LOCALNRANKS});</li>
 *   <li>none: a singleton, rank 0 of 1.</li>
 * </ol>
 * Cross rank and size (this rank's index among the ranks with the same local rank, one per host) come from
 * {@code TROIKA_CROSS_RANK}/{@code TROIKA_CROSS_SIZE}, else from {@code TROIKA_HOSTS} ({@code host:slots,...} in rank
 * order, by the rule of {@link RankTable}) or {@code TROIKA_HOST_SLOTS} (the slot counts alone, {@code 8x9999,4}),
 * else assume every host runs {@code localSize} ranks in rank order. The host name comes from
 * {@code TROIKA_HOSTNAME}, else {@code TROIKA_HOSTS}, else the machine's name.
 */
public record RankEnv(int rank, int size, int localRank, int localSize, int crossRank, int crossSize, String hostname) {

    public RankEnv {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new UsageException("rank " + rank + " of size " + size + " is impossible: check the launcher's "
                    + "rank variables (TROIKA_RANK/TROIKA_SIZE or the MPI's)");
        }
        if (localSize < 1 || localRank < 0 || localRank >= localSize) {
            throw new UsageException("local rank " + localRank + " of local size " + localSize + " is impossible: "
                    + "check TROIKA_LOCAL_RANK/TROIKA_LOCAL_SIZE or the MPI's local rank variables");
        }
        if (crossSize < 1 || crossRank < 0 || crossRank >= crossSize) {
            throw new UsageException("cross rank " + crossRank + " of cross size " + crossSize + " is impossible: "
                    + "check TROIKA_CROSS_RANK/TROIKA_CROSS_SIZE or TROIKA_HOSTS");
        }
    }

    /** This process's rank environment. */
    public static RankEnv current() {
        return from(System.getenv(), RankEnv::machineName);
    }

    /** The rank environment described by {@code env}; {@code machineName} is asked only when no variable names the host. */
    public static RankEnv from(Map<String, String> env, Supplier<String> machineName) {
        int rank = intOf(env, 0, TroikaEnv.RANK, "OMPI_COMM_WORLD_RANK", "PMI_RANK");
        int size = intOf(env, 1, TroikaEnv.SIZE, "OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
        RankTable.Row slot = locate(table(env), rank);
        int localRank = intOf(env, slot == null ? 0 : slot.localRank(), TroikaEnv.LOCAL_RANK,
                "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID");
        int localSize = intOf(env, slot == null ? 1 : slot.localSize(), TroikaEnv.LOCAL_SIZE,
                "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS");
        int crossRank;
        int crossSize;
        if (slot != null) {
            crossRank = slot.crossRank();
            crossSize = slot.crossSize();
        } else {
            crossRank = rank / localSize;
            crossSize = Math.max(1, (size + localSize - 1) / localSize);
        }
        crossRank = intOf(env, crossRank, TroikaEnv.CROSS_RANK);
        crossSize = intOf(env, crossSize, TroikaEnv.CROSS_SIZE);
        String host = env.get(TroikaEnv.HOSTNAME);
        if (host == null || host.isBlank()) {
            host = slot != null && slot.host() != null ? slot.host() : machineName.get();
        }
        return new RankEnv(rank, size, localRank, localSize, crossRank, crossSize, host);
    }

    /**
     * The rank table from {@link TroikaEnv#HOSTS} (with names), else {@link TroikaEnv#HOST_SLOTS} (without), else
     * {@code null}.
     */
    private static RankTable.Table table(Map<String, String> env) {
        List<RankTable.Host> hosts = hosts(env.get(TroikaEnv.HOSTS));
        if (!hosts.isEmpty()) {
            return RankTable.of(hosts);
        }
        String layout = env.get(TroikaEnv.HOST_SLOTS);
        if (layout == null || layout.isBlank()) {
            return null;
        }
        try {
            return RankTable.ofLayout(layout);
        } catch (IllegalArgumentException e) {
            throw new UsageException(TroikaEnv.HOST_SLOTS + ": " + e.getMessage() + ": fix or unset it");
        }
    }

    /** Rank r's row of {@code table} (the one rule, {@link RankTable}), or {@code null} without a table. */
    private static RankTable.Row locate(RankTable.Table table, int rank) {
        if (table == null) {
            return null;
        }
        if (rank < 0 || rank >= table.size()) {
            throw new UsageException("the planned hosts (" + TroikaEnv.HOSTS + " or " + TroikaEnv.HOST_SLOTS + ") have "
                    + table.size() + " slots but this is rank " + rank + ": the host list must cover every rank");
        }
        return table.get(rank);
    }

    private static List<RankTable.Host> hosts(String value) {
        List<RankTable.Host> hosts = new ArrayList<>();
        if (value == null || value.isBlank()) {
            return hosts;
        }
        for (String item : value.split(",")) {
            int colon = item.lastIndexOf(':');
            String host = colon < 0 ? item.strip() : item.substring(0, colon).strip();
            int slots = colon < 0 ? 1 : parse(TroikaEnv.HOSTS, item.substring(colon + 1).strip());
            if (host.isEmpty() || slots < 1) {
                throw new UsageException(TroikaEnv.HOSTS + " entry '" + item + "' is not host:slots with slots >= 1");
            }
            hosts.add(new RankTable.Host(host, slots));
        }
        return hosts;
    }

    private static int intOf(Map<String, String> env, int fallback, String... names) {
        for (String name : names) {
            String v = env.get(name);
            if (v != null && !v.isBlank()) {
                return parse(name, v.strip());
            }
        }
        return fallback;
    }

    private static int parse(String name, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new UsageException(name + "='" + value + "' is not a whole number: fix or unset it");
        }
    }

    private static String machineName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
