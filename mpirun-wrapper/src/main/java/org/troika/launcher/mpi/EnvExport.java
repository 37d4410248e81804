package org.troika.launcher.mpi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.troika.common.TroikaEnv;

/**
 * Which variables of the caller's environment reach the ranks. Pure functions of an environment map.
 *
 * <p><b>Never exported</b> ({@link #isExcluded}): shell functions ({@code BASH_FUNC_*}), {@code OLDPWD*}, device
 * visibility ({@code *_VISIBLE_DEVICES*}: CUDA, HIP, ROCR; the launching host's GPU selection is wrong elsewhere) and
 * troika's secret {@value TroikaEnv#SECRET_KEY}.
 *
 * <p><b>Not passed by name</b> to Open MPI ({@link #isMpiOwned}): {@code OMPI_*}, {@code OPAL_*}, {@code PMIX_*},
 * {@code PRTE_*}, {@code PMI_*} (mpirun forwards its own {@code OMPI_MCA_*} settings itself, and an outer job's
 * rank variables must not leak into this one) and names that are not shell identifiers ({@code -x} cannot carry them).
 *
 * <p><b>Size:</b> values never go on the command line ({@code -x NAME} exports mpirun's own value), so argv grows by
 * the names only. The names are capped at a budget (default {@value #DEFAULT_BUDGET} characters of {@code -x NAME}
 * words, a small fraction of Linux's 2 MiB {@code ARG_MAX} and of the 128 KiB single-string limit a {@code sh -c}
 * rendering would hit). Over budget, the essential names (PATH, library and Java paths, {@code TROIKA_*},
 * {@code NCCL_*}) are kept, the others in name order until the budget is used, and the rest reported.
 */
public final class EnvExport {
    /** Default budget, in characters of rendered {@code -x NAME } words. */
    public static final int DEFAULT_BUDGET = 32 * 1024;

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final List<String> MPI_PREFIXES = List.of("OMPI_", "OPAL_", "PMIX_", "PRTE_", "PMI_");
    private static final Set<String> ESSENTIAL = Set.of("PATH", "LD_LIBRARY_PATH", "CLASSPATH", "JAVA_HOME");

    private EnvExport() {}

    /** Names that must never reach a rank. */
    public static boolean isExcluded(String name) {
        return name.startsWith("BASH_FUNC_") || name.startsWith("OLDPWD") || name.contains("_VISIBLE_DEVICES")
                || name.equals(TroikaEnv.SECRET_KEY);
    }

    /** Names the MPI launcher owns or {@code -x} cannot carry. */
    public static boolean isMpiOwned(String name) {
        if (!IDENTIFIER.matcher(name).matches()) {
            return true;
        }
        for (String p : MPI_PREFIXES) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** {@code env} without the {@linkplain #isExcluded excluded} names (for launchers that forward everything). */
    public static Map<String, String> withoutExcluded(Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        env.forEach((k, v) -> {
            if (!isExcluded(k)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /**
     * The names to pass with {@code -x NAME}, sorted, and those left out for the budget.
     *
     * @param env the child environment
     * @param skip names passed another way (e.g. {@code -x NCCL_SOCKET_IFNAME=...})
     * @param budget characters of {@code -x NAME } words allowed
     */
    public static Selection select(Map<String, String> env, Set<String> skip, int budget) {
        List<String> essential = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (String name : new TreeSet<>(env.keySet())) {
            if (isExcluded(name) || isMpiOwned(name) || skip.contains(name)) {
                continue;
            }
            (isEssential(name) ? essential : others).add(name);
        }
        TreeSet<String> chosen = new TreeSet<>(essential);
        int used = essential.stream().mapToInt(EnvExport::cost).sum();
        List<String> dropped = new ArrayList<>();
        for (String name : others) {
            if (dropped.isEmpty() && used + cost(name) <= budget) {
                chosen.add(name);
                used += cost(name);
            } else {
                dropped.add(name);
            }
        }
        return new Selection(List.copyOf(chosen), dropped);
    }

    private static boolean isEssential(String name) {
        return ESSENTIAL.contains(name) || name.startsWith("TROIKA_") || name.startsWith("NCCL_");
    }

    /** Rendered size of {@code -x NAME }. */
    private static int cost(String name) {
        return name.length() + 4;
    }

    /**
     * The outcome of {@link #select}.
     *
     * @param names names to export, sorted
     * @param dropped exportable names left out because of the budget, sorted
     */
    public record Selection(List<String> names, List<String> dropped) {
        public Selection {
            names = List.copyOf(names);
            dropped = List.copyOf(dropped);
        }

        /** A one-line warning when names were dropped, else {@code null}. */
        public String warning(int budget) {
            if (dropped.isEmpty()) {
                return null;
            }
            List<String> shown = dropped.subList(0, Math.min(5, dropped.size()));
            return dropped.size() + " environment variables are not exported to remote ranks because the -x list "
                    + "would pass troika's " + budget + "-character budget (" + String.join(", ", shown)
                    + (dropped.size() > shown.size() ? ", ..." : "") + "); unset unneeded variables or pass needed "
                    + "ones with --mpi-args '-x NAME'";
        }
    }
}
