package org.troika.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ShellQuoteTest {
    @Test
    void quotesOnlyWhatNeedsIt() {
        assertEquals("mpirun -np 2 -H a:1,b:1 ''", ShellQuote.join(List.of("mpirun", "-np", "2", "-H", "a:1,b:1", "")));
        assertEquals("'a b' 'it'\"'\"'s' '$HOME'", ShellQuote.join(List.of("a b", "it's", "$HOME")));
    }

    @Test
    void splitsLikeAShell() {
        assertEquals(List.of("--bind-to", "core", "-x", "A=b c", "it's", "x\"y", "a\\b", "ab"),
                ShellQuote.split("  --bind-to core -x 'A=b c' \"it's\" \"x\\\"y\" 'a\\b' a\\b  "));
        assertEquals(List.of("", "x"), ShellQuote.split("'' x"));
        assertEquals(List.of(), ShellQuote.split("   "));
    }

    @Test
    void splitRoundTripsJoin() {
        List<String> words = List.of("a b", "it's", "", "$X", "\"q\"", "tab\there", "back\\slash");
        assertEquals(words, ShellQuote.split(ShellQuote.join(words)));
    }

    @Test
    void splitRejectsUnbalancedQuotes() {
        assertThrows(IllegalArgumentException.class, () -> ShellQuote.split("'abc"));
        assertThrows(IllegalArgumentException.class, () -> ShellQuote.split("\"abc"));
        assertThrows(IllegalArgumentException.class, () -> ShellQuote.split("abc\\"));
    }
}
