package org.troika.ompijava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * {@code Comm.recv} must stay small enough for the JIT to inline it into a caller's loop, where escape analysis drops a
 * {@code Status} the caller ignores (a status per receive otherwise costs small messages page faults of fresh heap:
 * docs/ompi-java.md). So it reaches the receive only through the method handle, never by a direct call that C2 would
 * inline into it and make it too large to inline in turn.
 */
class RecvShapeTest {
    @Test
    void recvCallsTheReceiveThroughTheMethodHandleOnly() throws Exception {
        String code = disassembled("mpi.Comm");
        String recv = method(code, "public final mpi.Status recv(java.lang.Object, int, mpi.Datatype, int, int)");
        assertTrue(recv.contains("MethodHandle.invokeExact"), "recv no longer calls the receive's method handle:\n" + recv);
        assertFalse(recv.contains("Method receive"), "recv calls receive directly, so C2 inlines it:\n" + recv);
        int last = lastOffset(recv);
        // C2 inlines a hot callee of up to 325 bytecodes (FreqInlineSize) whose compiled code is small
        assertTrue(last < 100, "recv has grown to " + last + " bytes of bytecode:\n" + recv);
        String receive = method(code, "private static mpi.Status$Words receive(mpi.Comm, java.lang.Object, int, mpi.Datatype,"
                + " int, int)");
        assertTrue(receive.contains("recvStatus"), "the receive no longer calls MPI_Recv:\n" + receive);
    }

    private static String disassembled(String className) {
        ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow();
        StringWriter out = new StringWriter();
        String classes = Path.of("target", "classes").toAbsolutePath().toString();
        int rc = javap.run(new PrintWriter(out), new PrintWriter(out), "-c", "-p", "-cp", classes, className);
        assertEquals(0, rc, out.toString());
        return out.toString();
    }

    /** The disassembly of one method: from its signature line to the next blank line. */
    private static String method(String code, String signature) {
        int at = code.indexOf(signature);
        assertTrue(at >= 0, "no method " + signature);
        int end = code.indexOf("\n\n", at);
        return code.substring(at, end < 0 ? code.length() : end);
    }

    private static int lastOffset(String method) {
        int last = -1;
        for (String line : method.split("\n")) {
            String t = line.trim();
            int colon = t.indexOf(':');
            if (colon > 0 && t.substring(0, colon).chars().allMatch(Character::isDigit)) {
                last = Integer.parseInt(t.substring(0, colon));
            }
        }
        return last;
    }
}
