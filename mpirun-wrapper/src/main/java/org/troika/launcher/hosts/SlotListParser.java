package org.troika.launcher.hosts;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.troika.common.UsageException;
import org.troika.launcher.spi.HostCheck;
import org.troika.launcher.spi.HostSlots;

/**
 * Reads "one host name per slot" lists ({@code PBS_NODEFILE}, {@code LSB_DJOB_HOSTFILE}, {@code LSB_HOSTS}) into hosts
 * with slot counts, in order of first appearance. Blank entries and {@code #} comment lines are skipped. Names are
 * checked by {@link HostCheck}; more than {@link HostCheck#MAX_RANKS} entries in all is an error. Pure.
 */
public final class SlotListParser {
    private SlotListParser() {}

    /**
     * Counts the slots of each host.
     *
     * @param source what the entries came from, for messages (e.g. {@code PBS_NODEFILE=/var/spool/x})
     * @param unit what one entry is called in messages: {@code line} for files, {@code entry} for variables
     * @throws UsageException naming the entry when it is not a host name, or when there are no hosts
     */
    public static List<HostSlots> countPerEntry(String source, String unit, List<String> entries) {
        Map<String, Integer> slots = new LinkedHashMap<>();
        int n = 0;
        long total = 0;
        for (String raw : entries) {
            n++;
            String h = raw.strip();
            if (h.isEmpty() || h.startsWith("#")) {
                continue;
            }
            HostCheck.name(source + " " + unit + " " + n + " (one host name per slot)", h);
            if (++total > HostCheck.MAX_RANKS) {
                throw new UsageException(source + " lists more than " + HostCheck.MAX_RANKS
                        + " slots, troika's limit; check the file, or pass -H/--hostfile");
            }
            slots.merge(h, 1, Integer::sum);
        }
        if (slots.isEmpty()) {
            throw new UsageException(source + " lists no hosts; run troika inside the job, or pass -H/--hostfile");
        }
        List<HostSlots> out = new ArrayList<>();
        slots.forEach((h, c) -> out.add(new HostSlots(h, c)));
        return out;
    }
}
