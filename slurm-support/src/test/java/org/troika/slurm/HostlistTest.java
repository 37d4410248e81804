package org.troika.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.common.UsageException;

class HostlistTest {
    private static List<String> expand(String s) {
        return Hostlist.expand(s, "SLURM_JOB_NODELIST");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
        "localhost                 | localhost",
        "n[1-3]                    | n1 n2 n3",
        "n[1-3,7]                  | n1 n2 n3 n7",
        "tux[0-2,12,20-21]         | tux0 tux1 tux2 tux12 tux20 tux21",
        "node[001-003]             | node001 node002 node003",
        "node[08-11]               | node08 node09 node10 node11",
        "n[9-11]                   | n9 n10 n11",
        "a1,b2                     | a1 b2",
        "'a1, b2'                  | a1 b2",
        "'a1 b2'                   | a1 b2",
        "n[1-2],gpu[01-02],login   | n1 n2 gpu01 gpu02 login",
        "rack[1-2]-n[1-2]          | rack1-n1 rack1-n2 rack2-n1 rack2-n2",
        "n[1-2].cluster            | n1.cluster n2.cluster",
        "n[5]                      | n5",
        "n[3,1]                    | n3 n1",
        "n1,n1                     | n1 n1",
        "c[1-2]b[7]x               | c1b7x c2b7x",
    })
    void expandsValidExpressions(String expr, String expected) {
        assertEquals(List.of(expected.split(" ")), expand(expr));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
        "n[1-3          | never closed",
        "n1-3]          | no matching",
        "n[[1-3]]       | nested",
        "n[]            | empty bracket",
        "n[1-]          | where a number belongs",
        "n[-3]          | where a number belongs",
        "n[a-c]         | where a number belongs",
        "n[3-1]         | backwards",
        "n[1,,2]        | empty element",
        "'a,,b'         | stray comma",
        "',a'           | stray comma",
        "'a,'           | stray comma",
        "bgl[123x456]   | torus",
        "n[1-99999999]  | more than",
        "'n[1-2]$x'     | characters other than",
        "'   '          | empty",
    })
    void rejectsMalformedExpressionsWithOneLine(String expr, String fragment) {
        UsageException e = assertThrows(UsageException.class, () -> expand(expr));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
        assertTrue(e.getMessage().startsWith("SLURM_JOB_NODELIST="), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line");
    }

    @Test
    void productCapDoesNotAllocateBeforeFailing() {
        assertThrows(UsageException.class, () -> expand("a[1-1000]b[1-1000]c[1-1000]"));
    }
}
