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
        splitter.feed(b, 0, b.length);
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
        splitter.finish();
        assertEquals(List.of("no newline"), segments);
    }

    @Test
    void carriesMultiByteCharactersSplitAcrossReads() {
        byte[] b = "h\u00e9 \u20ac \uD834\uDD1E\n".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i++) {
            splitter.feed(b, i, 1);
        }
        splitter.finish();
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
        splitter.finish();
        assertEquals(List.of("x\r"), segments);
    }

    @Test
    void malformedAndTruncatedBytesBecomeReplacementCharacters() {
        splitter.feed(new byte[] {'a', (byte) 0xff, 'b', '\n', (byte) 0xe2, (byte) 0x82}, 0, 6);
        splitter.finish();
        assertEquals(List.of("a\ufffdb\n", "\ufffd"), segments);
    }
}
