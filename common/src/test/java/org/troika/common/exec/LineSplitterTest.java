package org.troika.common.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSplitterTest {
    private final List<String> segments = new ArrayList<>();
    private final LineSplitter splitter = new LineSplitter(segments::add);

    private void feed(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        splitter.write(b, 0, b.length);
    }

    @Test
    void splitsAfterEachTerminatorAndKeepsIt() {
        feed("a\nb\r\nc\rd\n");
        assertEquals(List.of("a\n", "b\r\n", "c\r", "d\n"), segments);
    }

    @Test
    void emitsEachLineAsSoonAsItIsComplete() {
        feed("first\nsec");
        assertEquals(List.of("first\n"), segments);
        feed("ond\n");
        assertEquals(List.of("first\n", "second\n"), segments);
    }

    @Test
    void holdsPartialTextUntilFinish() {
        feed("no newline");
        assertEquals(List.of(), segments);
        splitter.end();
        assertEquals(List.of("no newline"), segments);
    }

    @Test
    void handsOverAnEndlessLineInBoundedPiecesThatAddUpToIt() {
        int max = LineSplitter.MAX_SEGMENT;
        String endless = "x".repeat(3 * max + 5);
        for (int i = 0; i < endless.length(); i += 1000) {
            feed(endless.substring(i, Math.min(endless.length(), i + 1000)));
        }
        assertEquals(3, segments.size(), "held back until the bound, then handed over");
        segments.forEach(s -> assertEquals(max, s.length()));
        feed("y\n");
        splitter.end();
        assertEquals(endless + "y\n", String.join("", segments));
    }

    @Test
    void neverCutsASurrogatePairAtTheBound() {
        String text = "a".repeat(LineSplitter.MAX_SEGMENT - 1) + "\uD834\uDD1E" + "b\n";
        feed(text);
        assertEquals(text, String.join("", segments));
        segments.forEach(s -> assertEquals(false, Character.isHighSurrogate(s.charAt(s.length() - 1)), s));
    }

    @Test
    void carriesMultiByteCharactersSplitAcrossReads() {
        byte[] b = "h\u00e9 \u20ac \uD834\uDD1E\n".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i++) {
            splitter.write(b, i, 1);
        }
        splitter.end();
        assertEquals(List.of("h\u00e9 \u20ac \uD834\uDD1E\n"), segments);
    }

    @Test
    void crLfSplitAcrossReadsIsOneTerminator() {
        feed("progress\r");
        feed("\nnext\n");
        assertEquals(List.of("progress\r\n", "next\n"), segments);
    }

    @Test
    void progressBarRedrawsAreSeparateSegments() {
        feed("\r10%\r20%\r30%\n");
        assertEquals(List.of("\r", "10%\r", "20%\r", "30%\n"), segments);
    }

    @Test
    void trailingCarriageReturnIsFlushedAtFinish() {
        feed("x\r");
        splitter.end();
        assertEquals(List.of("x\r"), segments);
    }

    @Test
    void malformedAndTruncatedBytesBecomeReplacementCharacters() {
        splitter.write(new byte[] {'a', (byte) 0xff, 'b', '\n', (byte) 0xe2, (byte) 0x82}, 0, 6);
        splitter.end();
        assertEquals(List.of("a\ufffdb\n", "\ufffd"), segments);
    }
}
