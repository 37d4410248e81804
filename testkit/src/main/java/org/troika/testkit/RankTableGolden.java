package org.troika.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.troika.common.RankTable;

/**
 * The golden rank-table fixture ({@code rank-table.golden} beside this class): the cases the launcher's host plan, the
 * rank side's {@code RankEnv} and {@code bin/troika-rankenv} are each tested against, so the three cannot drift apart.
 */
public final class RankTableGolden {
    private RankTableGolden() {}

    /**
     * One case.
     *
     * @param troikaHosts the host list in {@code TROIKA_HOSTS} form ({@code host:slots,...}, rank order)
     * @param rows the expected row of every rank, ordered by rank
     */
    public record Case(String troikaHosts, List<RankTable.Row> rows) {
        public Case {
            rows = List.copyOf(rows);
        }

        /** The hosts of this case, in order. */
        public List<RankTable.Host> hosts() {
            List<RankTable.Host> hosts = new ArrayList<>();
            for (String item : troikaHosts.split(",")) {
                int colon = item.lastIndexOf(':');
                hosts.add(new RankTable.Host(item.substring(0, colon), Integer.parseInt(item.substring(colon + 1))));
            }
            return hosts;
        }
    }

    /** Every case of the fixture. */
    public static List<Case> cases() {
        String text;
        try (InputStream in = RankTableGolden.class.getResourceAsStream("rank-table.golden")) {
            if (in == null) {
                throw new IllegalStateException("rank-table.golden is missing from troika-testkit");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Case> cases = new ArrayList<>();
        String hosts = null;
        List<RankTable.Row> rows = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            if (f[0].equals("hosts")) {
                if (hosts != null) {
                    cases.add(new Case(hosts, rows));
                }
                hosts = f[1];
                rows = new ArrayList<>();
            } else {
                // rank host local_rank local_size cross_rank cross_size size
                rows.add(new RankTable.Row(f[1], Integer.parseInt(f[0]), Integer.parseInt(f[2]), Integer.parseInt(f[4]),
                        Integer.parseInt(f[6]), Integer.parseInt(f[3]), Integer.parseInt(f[5])));
            }
        }
        if (hosts != null) {
            cases.add(new Case(hosts, rows));
        }
        return cases;
    }
}
