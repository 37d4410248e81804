package org.troika.jsrun;

import java.util.Map;
import org.troika.common.UsageException;

/**
 * Site settings for the ERF file that the allocation does not tell troika, read from the environment.
 *
 * <table>
 *   <caption>Environment variables</caption>
 *   <tr><th>variable</th><th>values</th><th>default</th></tr>
 *   <tr><td>{@code TROIKA_JSRUN_HOST_KEY}</td><td>{@code hostname} ({@code hostname: NAME}) or {@code host}
 *       ({@code host: INDEX}, 1-based position in the allocation's compute hosts; 0 is the launch node)</td>
 *       <td>{@code hostname}</td></tr>
 *   <tr><td>{@code TROIKA_JSRUN_CORES_PER_HOST}</td><td>physical cores usable per compute host</td>
 *       <td>the largest slot count of any allocated host (LSF counts one slot per core)</td></tr>
 *   <tr><td>{@code TROIKA_JSRUN_THREADS_PER_CORE}</td><td>hardware threads per core (SMT)</td><td>1</td></tr>
 *   <tr><td>{@code TROIKA_JSRUN_CPU_INDEX}</td><td>{@code logical} or {@code physical}
 *       ({@code cpu_index_using}; some JSM versions reject {@code physical})</td><td>{@code logical}</td></tr>
 * </table>
 *
 * @param hostKey how a rank line names its host
 * @param coresPerHost usable cores per host, or {@code null} for the default
 * @param threadsPerCore hardware threads per core
 * @param cpuIndex {@code logical} or {@code physical}
 */
public record JsrunOptions(HostKey hostKey, Integer coresPerHost, int threadsPerCore, String cpuIndex) {
    static final String HOST_KEY = "TROIKA_JSRUN_HOST_KEY";
    static final String CORES = "TROIKA_JSRUN_CORES_PER_HOST";
    static final String THREADS = "TROIKA_JSRUN_THREADS_PER_CORE";
    static final String CPU_INDEX = "TROIKA_JSRUN_CPU_INDEX";

    /** The ERF host key form. */
    public enum HostKey { HOSTNAME, HOST_INDEX }

    public static JsrunOptions defaults() {
        return new JsrunOptions(HostKey.HOSTNAME, null, 1, "logical");
    }

    /** Reads the variables above from {@code env}; a bad value is a {@link UsageException}. */
    public static JsrunOptions fromEnv(Map<String, String> env) {
        String key = env.getOrDefault(HOST_KEY, "hostname").strip();
        HostKey hk = switch (key) {
            case "hostname" -> HostKey.HOSTNAME;
            case "host" -> HostKey.HOST_INDEX;
            default -> throw new UsageException(HOST_KEY + "='" + key + "' is not a host key form; use hostname or host");
        };
        Integer cores = env.containsKey(CORES) ? positive(env.get(CORES), CORES) : null;
        int threads = env.containsKey(THREADS) ? positive(env.get(THREADS), THREADS) : 1;
        String cpuIndex = env.getOrDefault(CPU_INDEX, "logical").strip();
        if (!cpuIndex.equals("logical") && !cpuIndex.equals("physical")) {
            throw new UsageException(CPU_INDEX + "='" + cpuIndex + "' must be logical or physical");
        }
        return new JsrunOptions(hk, cores, threads, cpuIndex);
    }

    private static int positive(String v, String name) {
        String s = v.strip();
        if (!s.matches("[0-9]{1,5}") || Integer.parseInt(s) < 1) {
            throw new UsageException(name + "='" + v + "' must be a positive whole number");
        }
        return Integer.parseInt(s);
    }
}
