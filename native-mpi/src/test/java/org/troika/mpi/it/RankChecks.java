package org.troika.mpi.it;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.troika.mpi.Datatype;

/** What the rank programs of the integration tests share: counting passed checks, recording failures, buffers. */
abstract class RankChecks {
    final List<String> failures = new ArrayList<>();
    int passed;

    void check(String name, boolean ok) {
        if (ok) {
            passed++;
        } else {
            fail(name);
        }
    }

    void fail(String what) {
        failures.add(what);
    }

    /** The call must be refused in Java with an IllegalArgumentException. */
    void expectIllegal(String name, Runnable call) {
        try {
            call.run();
            fail(name + ": no exception");
        } catch (IllegalArgumentException e) {
            passed++;
        }
    }

    /** A direct native-order buffer of {@code n} elements of {@code t}. */
    static Buffer direct(Datatype t, int n) {
        ByteBuffer b = ByteBuffer.allocateDirect(n * t.bytes()).order(ByteOrder.nativeOrder());
        return switch (t) {
            case FLOAT -> b.asFloatBuffer();
            case DOUBLE -> b.asDoubleBuffer();
            case INT -> b.asIntBuffer();
            case LONG -> b.asLongBuffer();
            default -> b;
        };
    }

    static long addressOf(Buffer b) {
        return Pointer.nativeValue(Native.getDirectBufferPointer(b));
    }
}
