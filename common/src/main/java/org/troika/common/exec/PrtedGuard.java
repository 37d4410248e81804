package org.troika.common.exec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.troika.common.TroikaEnv;

/**
 * The library preloaded into PRRTE's daemons (the task services' {@code prted}, and {@code mpirun}'s own, which is
 * one too): it keeps PRRTE 3.0.x (Open MPI 5.0.x) from freeing a garbage pointer after the connect of a spawn across
 * hosts (lib/troika-prted-guard.c, docs/elastic.md). Pure, except {@link #installed}, which looks at a file.
 */
public final class PrtedGuard {
    private PrtedGuard() {}

    /** Where {@code bin/troika-mkcds} builds it in a troika installation. */
    public static final String LIB = "lib/libtroika-prted-guard.so";

    /**
     * The guard of the installation at {@code home}, or {@code null}: no installation, not built (no C compiler), or
     * {@link TroikaEnv#PRTED_GUARD} is {@code off} in {@code env}.
     */
    public static Path installed(Path home, Map<String, String> env) {
        if (home == null || "off".equals(env.get(TroikaEnv.PRTED_GUARD))) {
            return null;
        }
        Path lib = home.resolve(LIB);
        return Files.isRegularFile(lib) ? lib : null;
    }

    /** {@code env} with {@code lib} first in {@code LD_PRELOAD} (before what was preloaded already). */
    public static Map<String, String> preloaded(Map<String, String> env, String lib) {
        Map<String, String> e = new HashMap<>(env);
        String preload = env.get("LD_PRELOAD");
        e.put("LD_PRELOAD", preload == null || preload.isBlank() ? lib : lib + ":" + preload);
        return e;
    }
}
