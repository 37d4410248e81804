package org.troika.launcher.hosts;

import org.troika.launcher.spi.HostSlots;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;

class HostListParserTest {
    @Test
    void parsesEntriesInOrderAndTrimsThem() {
        assertEquals(List.of(new HostSlots("node2", 4), new HostSlots("node1.example.org", 2), new HostSlots("10.0.0.3", 1)),
                HostListParser.parse("node2:4, node1.example.org:2 ,10.0.0.3:1"));
    }

    @Test
    void leadingZerosAreAccepted() {
        assertEquals(List.of(new HostSlots("a", 8)), HostListParser.parse("a:08"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "a|has no slot count",
        "a:b|slot count 'b' is not a whole number",
        "a:0|has 0 slots",
        "a:1,,b:1|empty entry",
        "host:1:2|host name 'host:1' contains ':'",
        "a:-1|slot count '-1' is not a whole number",
        "[::1]:2|host name '[::1]' contains '['",
        "fe80::1:2|looks like an IPv6 address",
        "a:1,a:2|twice",
        "a:1,|empty entry",
        "-np:1|starts with '-'",
        "--mca:1|starts with '-'",
        "a:99999999999|more than troika's limit of 1048576",
        "a:1048577|more than troika's limit of 1048576",
        "a:2147483647,b:2147483647|more than troika's limit",
        "a:1048576,b:1|1048577 slots in all"})
    void rejectsMalformedEntriesWithOneLine(String input, String expected) {
        UsageException e = assertThrows(UsageException.class, () -> HostListParser.parse(input));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  "})
    void rejectsEmptyList(String input) {
        assertThrows(UsageException.class, () -> HostListParser.parse(input));
    }
}
