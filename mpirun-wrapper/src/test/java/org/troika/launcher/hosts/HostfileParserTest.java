package org.troika.launcher.hosts;

import org.troika.launcher.spi.HostSlots;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.troika.common.UsageException;

class HostfileParserTest {
    @Test
    void acceptsCommentsBlankLinesTabsAndMaxSlots() {
        List<String> lines = List.of(
                "# cluster A",
                "",
                "node1 slots=4",
                "node2\tslots=2   max_slots=8   # trailing comment",
                "   ",
                "node3");
        assertEquals(List.of(new HostSlots("node1", 4), new HostSlots("node2", 2, 8), new HostSlots("node3", 1)),
                HostfileParser.parse("hf", lines));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "node1 slots=x|line 1: slot count 'x' is not a whole number",
        "node1 slots=0|0 slots",
        "node1 slots=4 max_slots=2|max_slots=2 is below slots=4",
        "node1 cores=4|unexpected 'cores=4'",
        "node:1 slots=2|host name 'node:1' contains ':'",
        "-np slots=1|host name '-np' starts with '-'",
        "a slots=1 slots=2|slots is given twice",
        "a max_slots=2 max-slots=3|max_slots is given twice",
        "a slots=2147483647|more than troika's limit"})
    void rejectsMalformedLinesNamingTheLine(String line, String expected) {
        UsageException e = assertThrows(UsageException.class, () -> HostfileParser.parse("hf", List.of(line)));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void rejectsDuplicatesWithLineNumber() {
        UsageException e = assertThrows(UsageException.class,
                () -> HostfileParser.parse("hf", List.of("a slots=1", "b slots=1", "a slots=2")));
        assertTrue(e.getMessage().contains("line 3") && e.getMessage().contains("twice"), e.getMessage());
    }

    @Test
    void rejectsFileWithoutHosts() {
        UsageException e = assertThrows(UsageException.class, () -> HostfileParser.parse("hf", List.of("# nothing", "")));
        assertTrue(e.getMessage().contains("lists no hosts"), e.getMessage());
    }
}
