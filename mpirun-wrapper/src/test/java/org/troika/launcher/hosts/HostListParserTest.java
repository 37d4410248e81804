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
        "a|is not host:slots",
        "a:b|is not host:slots",
        "a:0|has 0 slots",
        "a:1,,b:1|empty entry",
        "host:1:2|is not host:slots",
        "a:-1|is not host:slots",
        "[::1]:2|is not host:slots",
        "a:1,a:2|twice",
        "a:1,|empty entry",
        "a:99999999999|too large"})
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
