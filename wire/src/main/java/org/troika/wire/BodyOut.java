package org.troika.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Growing big-endian writer of message bodies: integers, strings as u32 length + UTF-8, lists as u32 count + items. */
final class BodyOut {
    private final ByteArrayOutputStream b = new ByteArrayOutputStream(64);

    BodyOut u8(int v) {
        b.write(v);
        return this;
    }

    BodyOut u32(int v) {
        b.write(v >>> 24);
        b.write(v >>> 16);
        b.write(v >>> 8);
        b.write(v);
        return this;
    }

    BodyOut i64(long v) {
        u32((int) (v >>> 32));
        return u32((int) v);
    }

    BodyOut bytes(byte[] v) {
        u32(v.length);
        b.writeBytes(v);
        return this;
    }

    BodyOut str(String s) {
        return bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    BodyOut strs(List<String> l) {
        u32(l.size());
        for (String s : l) {
            str(s);
        }
        return this;
    }

    BodyOut ints(List<Integer> l) {
        u32(l.size());
        for (int v : l) {
            u32(v);
        }
        return this;
    }

    BodyOut endpoints(List<Endpoint> l) {
        u32(l.size());
        for (Endpoint e : l) {
            str(e.address()).u32(e.port());
        }
        return this;
    }

    byte[] toByteArray() {
        return b.toByteArray();
    }
}
