package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LinePrefixerTest {
    private final List<String> out = new ArrayList<>();

    @Test
    void prefixesIndexAndStream() {
        LinePrefixer p = new LinePrefixer(out::add, 3, "stderr", null);
        p.accept("boom\n");
        assertEquals(List.of("[3]<stderr>:boom\n"), out);
    }

    @Test
    void timestampIsAsctimeWithSpacePaddedDayGluedToTheBracket() {
        Clock clock = Clock.fixed(Instant.parse("2026-11-07T09:05:01Z"), ZoneOffset.UTC);
        LinePrefixer p = new LinePrefixer(out::add, 0, "stdout", clock);
        p.accept("x\n");
        assertEquals(List.of("Sat Nov  7 09:05:01 2026[0]<stdout>:x\n"), out);
    }

    @Test
    void leavesMpiTaggedOutputAlone() {
        LinePrefixer p = new LinePrefixer(out::add, 0, "stdout", null);
        p.accept("[1,2]<stdout>:hello\n");
        p.accept("[2]<stderr>:already\n");
        p.accept("[1,x]<stdout>:not a tag\n");
        assertEquals(List.of("[1,2]<stdout>:hello\n", "[2]<stderr>:already\n", "[0]<stdout>:[1,x]<stdout>:not a tag\n"), out);
    }

    @Test
    void rejectsUnknownStreamNames() {
        assertThrows(IllegalArgumentException.class, () -> new LinePrefixer(out::add, 0, "stdin", null));
    }
}
