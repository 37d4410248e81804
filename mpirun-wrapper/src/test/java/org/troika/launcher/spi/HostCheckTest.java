package org.troika.launcher.spi;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.troika.common.UsageException;

/** The one host-input rule: names, slot counts and totals. */
class HostCheckTest {
    @ParameterizedTest
    @ValueSource(strings = {"a", "localhost", "node01", "n1.cluster.example.org", "rack1-n01", "node_01", "10.0.0.2",
        "127.0.0.1", "A-Z.z-a", "xn--bcher-kva.example", "1", "a-b-c"})
    void acceptsHostNamesAndIpv4Literals(String name) {
        assertNull(HostCheck.nameProblem(name), name);
        assertEquals(name, HostCheck.name("test", name));
        assertEquals(name, new HostSlots(name, 1).name());
    }

    @Test
    void acceptsTheLongestNameAndLabel() {
        String label = "a".repeat(63);
        String name = String.join(".", label, label, label, "b".repeat(61)); // 63*3 + 61 + 3 dots = 253
        assertEquals(253, name.length());
        assertNull(HostCheck.nameProblem(name));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "-np|starts with '-'",
        "--mca|starts with '-'",
        "-|starts with '-'",
        "a-|a label that starts or ends with '-'",
        "a.-b|a label that starts or ends with '-'",
        "a..b|an empty label",
        ".a|an empty label",
        "a.|an empty label",
        "a b|contains a space",
        "a/b|contains '/'",
        "a;b|contains ';'",
        "$(id)|contains '$'",
        "a:1|contains ':'",
        "fe80::1|looks like an IPv6 address",
        "b\u00fccher|contains '\u00fc'",
        "a*|contains '*'"})
    void refusesNamesNamingTheProblem(String name, String problem) {
        String p = HostCheck.nameProblem(name);
        assertTrue(p != null && p.contains(problem), name + ": " + p);
        UsageException e = assertThrows(UsageException.class, () -> HostCheck.name("-H entry 'x'", name));
        assertTrue(e.getMessage().startsWith("-H entry 'x': host name "), e.getMessage());
        assertTrue(e.getMessage().endsWith(HostCheck.NAME_RULE), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new HostSlots(name, 1));
    }

    @Test
    void refusesLongNamesAndControlCharactersWithoutEchoingThem() {
        String huge = "a".repeat(100_000);
        assertAll(
                () -> assertEquals("is 254 characters long, more than 253", HostCheck.nameProblem("a".repeat(254))),
                () -> assertEquals("is 300 characters long, more than 253", HostCheck.nameProblem("a".repeat(300))),
                () -> assertEquals("has a label of 64 characters, more than 63", HostCheck.nameProblem("a".repeat(64))),
                () -> assertEquals("is empty", HostCheck.nameProblem("")),
                () -> assertEquals("contains '''", HostCheck.nameProblem("a'b")),
                () -> assertEquals("contains '\"'", HostCheck.nameProblem("a\"b")),
                () -> assertEquals("contains '\\x1b'", HostCheck.nameProblem("a\u001b[31m")),
                () -> assertEquals("contains '\\n'", HostCheck.nameProblem("a\nb")),
                () -> assertEquals("contains '\\x00'", HostCheck.nameProblem("a\u0000b")),
                () -> assertEquals("contains '\\u202e'", HostCheck.nameProblem("a\u202eb")));
        String msg = assertThrows(UsageException.class, () -> HostCheck.name("-H", huge)).getMessage();
        assertTrue(msg.length() < 400 && msg.contains("(100000 characters)"), msg);
    }

    @Test
    void slotCountsAreDigitsWithinTheBound() {
        assertAll(
                () -> assertEquals(1, HostCheck.slots("w", "1")),
                () -> assertEquals(8, HostCheck.slots("w", "08")),
                () -> assertEquals(HostCheck.MAX_RANKS, HostCheck.slots("w", "0000001048576")),
                () -> assertEquals(HostCheck.MAX_RANKS, HostCheck.slots("w", (long) HostCheck.MAX_RANKS)));
        for (String bad : List.of("0", "00", "-1", "+1", "", " 1", "1.5", "0x10", "x", "1048577", "2147483647",
                "2147483648", "99999999999999999999999", "\u0661")) {
            UsageException e = assertThrows(UsageException.class, () -> HostCheck.slots("w", bad), bad);
            assertTrue(e.getMessage().startsWith("w: "), e.getMessage());
        }
        assertThrows(UsageException.class, () -> HostCheck.slots("w", 0L));
        assertThrows(UsageException.class, () -> HostCheck.slots("w", Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> new HostSlots("a", HostCheck.MAX_RANKS + 1));
    }

    @Test
    void totalsAreSummedWithoutOverflow() {
        List<HostSlots> ok = List.of(new HostSlots("a", HostCheck.MAX_RANKS - 1), new HostSlots("b", 1));
        assertEquals(ok, HostCheck.total("-H", ok));
        List<HostSlots> many = java.util.stream.IntStream.range(0, 2100)
                .mapToObj(i -> new HostSlots("n" + i, HostCheck.MAX_RANKS)).toList(); // 2^31+ in int arithmetic
        UsageException e = assertThrows(UsageException.class, () -> HostCheck.total("hostfile x", many));
        assertEquals("hostfile x has 2202009600 slots in all, more than troika's limit of 1048576 ranks; list fewer"
                + " hosts or slots", e.getMessage());
    }
}
