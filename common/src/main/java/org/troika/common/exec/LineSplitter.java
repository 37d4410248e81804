package org.troika.common.exec;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * An {@link OutputSink} that cuts a byte stream into text {@link LineSink} segments, for output troika reads as
 * text (probes, task-service start messages; a launch's output goes through as bytes instead): decodes UTF-8
 * incrementally (a multi-byte character split across two reads is carried over, malformed bytes become U+FFFD),
 * splits after {@code \n}, {@code \r\n} and a lone {@code \r}, and hands each finished segment to the sink
 * immediately. Text without a terminator is held until the terminator arrives or {@link #end()} flushes it, but never more than {@value #MAX_SEGMENT} characters: a longer
 * line is handed over in pieces of that size (never splitting a surrogate pair), so a child that prints endless
 * text without a newline cannot fill the heap.
 *
 * <p>Not thread-safe: one splitter per stream, fed by one thread.
 */
public final class LineSplitter implements OutputSink {
    /** Most characters held for one segment; a longer line is emitted in pieces. */
    public static final int MAX_SEGMENT = 64 * 1024;

    private final LineSink sink;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    /** Undecoded bytes of an incomplete character, carried to the next {@link #feed}. */
    private final ByteBuffer carry = ByteBuffer.allocate(8);
    private final StringBuilder pending = new StringBuilder();
    /** The pending text ends in {@code \r} that may still be followed by {@code \n}. */
    private boolean pendingCr;
    private CharBuffer chars = CharBuffer.allocate(1024);

    public LineSplitter(LineSink sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** Decodes {@code len} bytes and emits every segment they complete. */
    @Override
    public void write(byte[] buf, int off, int len) {
        ByteBuffer in;
        if (carry.position() > 0) {
            carry.flip();
            in = ByteBuffer.allocate(carry.remaining() + len);
            in.put(carry).put(buf, off, len).flip();
            carry.clear();
        } else {
            in = ByteBuffer.wrap(buf, off, len);
        }
        if (chars.capacity() < in.remaining()) {
            chars = CharBuffer.allocate(in.remaining());
        }
        chars.clear();
        decoder.decode(in, chars, false);
        carry.put(in); // at most 3 bytes of a character that is not complete yet
        chars.flip();
        split(chars);
    }

    /** End of stream: decodes what is left (an incomplete character becomes U+FFFD) and emits the last segment. */
    @Override
    public void end() {
        carry.flip();
        CharBuffer tail = CharBuffer.allocate(8);
        decoder.decode(carry, tail, true);
        decoder.flush(tail);
        carry.clear();
        tail.flip();
        split(tail);
        if (pendingCr || pending.length() > 0) {
            emit();
        }
        decoder.reset();
    }

    private void split(CharBuffer cb) {
        while (cb.hasRemaining()) {
            char c = cb.get();
            if (pendingCr) {
                if (c == '\n') {
                    pending.append('\n');
                    emit();
                    continue;
                }
                emit();
            }
            pending.append(c);
            if (c == '\n') {
                emit();
            } else if (c == '\r') {
                pendingCr = true;
            } else if (pending.length() >= MAX_SEGMENT && !Character.isHighSurrogate(c)) {
                emit();
            }
        }
    }

    private void emit() {
        String s = pending.toString();
        pending.setLength(0);
        pendingCr = false;
        sink.accept(s);
    }
}
