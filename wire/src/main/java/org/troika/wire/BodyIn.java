package org.troika.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Bounds-checked reader of an (already authenticated, size-capped) message body: every length and count is checked
 * against the bytes actually left before anything is allocated, so a body cannot make the decoder allocate more than
 * the frame itself.
 */
final class BodyIn {
    private final ByteBuffer buf;

    BodyIn(byte[] body) {
        buf = ByteBuffer.wrap(body);
    }

    int remaining() {
        return buf.remaining();
    }

    private void need(long n) throws WireException {
        if (n < 0 || n > buf.remaining()) {
            throw new WireException("truncated body: need " + n + " bytes, " + buf.remaining() + " left");
        }
    }

    int u8() throws WireException {
        need(1);
        return buf.get() & 0xff;
    }

    int u32() throws WireException {
        need(4);
        return buf.getInt();
    }

    long i64() throws WireException {
        need(8);
        return buf.getLong();
    }

    /** A count of items each at least {@code minItemBytes} long, so it cannot exceed what is left. */
    int count(int minItemBytes) throws WireException {
        int n = u32();
        need((long) n * minItemBytes);
        return n;
    }

    byte[] bytes() throws WireException {
        int n = u32();
        need(n & 0xffffffffL);
        byte[] v = new byte[n];
        buf.get(v);
        return v;
    }

    String str() throws WireException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes())).toString();
        } catch (CharacterCodingException e) {
            throw new WireException("invalid UTF-8 in message body");
        }
    }

    List<String> strs() throws WireException {
        int n = count(4);
        List<String> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(str());
        }
        return l;
    }

    List<Integer> ints() throws WireException {
        int n = count(4);
        List<Integer> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(u32());
        }
        return l;
    }

    List<Endpoint> endpoints() throws WireException {
        int n = count(8);
        List<Endpoint> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(new Endpoint(str(), u32()));
        }
        return l;
    }
}
