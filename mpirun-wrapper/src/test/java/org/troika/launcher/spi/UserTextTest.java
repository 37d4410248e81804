package org.troika.launcher.spi;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class UserTextTest {
    @Test
    void escapesEveryControlCharacterSoTheTextStaysOneInertLine() {
        assertAll(
                () -> assertEquals("a\\nb\\r\\tc", UserText.escape("a\nb\r\tc")),
                () -> assertEquals("\\x1b[31mred\\x1b[0m", UserText.escape("\u001b[31mred\u001b[0m")),
                () -> assertEquals("\\x00\\x07\\x7f", UserText.escape("\u0000\u0007\u007f")),
                () -> assertEquals("\\u0085\\u009b", UserText.escape("\u0085\u009b")),
                () -> assertEquals("\\u2028\\u2029", UserText.escape("\u2028\u2029")),
                () -> assertEquals("a\\u202eb\\u2066", UserText.escape("a\u202eb\u2066")),
                () -> assertEquals("caf\u00e9 \u20ac \\ back", UserText.escape("caf\u00e9 \u20ac \\ back")),
                // bytes that are not text in the locale (NativeText's escapes) show as the bytes
                () -> assertEquals("caf\\xe9 \\xff", UserText.escape("caf\udce9 \udcff")));
        String plain = "nothing to do";
        assertSame(plain, UserText.escape(plain));
        String once = UserText.escape("x\ny\u001b");
        assertEquals(once, UserText.escape(once), "idempotent");
    }

    @Test
    void quotesAndAbbreviatesLongValues() {
        assertEquals("'a\\nb'", UserText.quote("a\nb"));
        assertEquals("'" + "x".repeat(80) + "'", UserText.quote("x".repeat(80)));
        assertEquals("'" + "x".repeat(60) + "...' (100000 characters)", UserText.quote("x".repeat(100_000)));
        assertEquals("null", UserText.quote(null));
    }

    @Test
    void truncatesLongLines() {
        assertEquals("abc", UserText.truncate("abc", 3));
        assertEquals("ab... (3 more characters)", UserText.truncate("abcde", 2));
    }
}
