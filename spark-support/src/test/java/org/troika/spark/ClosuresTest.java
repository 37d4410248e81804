package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InvalidClassException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.troika.wire.Protocol;
import org.troika.wire.SparkMessage;
import org.troika.worker.RankEnv;

class ClosuresTest {
    private static final ClassLoader LOADER = ClosuresTest.class.getClassLoader();
    private static final RankEnv RANK1 = new RankEnv(1, 4, 1, 4, 0, 1, "spark-x");

    @Test
    void aLambdasFilterAllowsTheClassThatWroteItAndEndsInRejectAll() {
        RankFunction<String> fn = env -> "r" + env.rank();
        assertEquals(ClosuresTest.class.getName(), Closures.definingClassName(fn));
        String f = Closures.filterFor(fn, List.of("com.acme.**"));
        assertTrue(f.contains(";org.troika.spark.*;com.acme.**;!*") && f.startsWith("maxdepth="), f);
    }

    @Test
    void aLambdaRoundTripsThroughTheFilterAndRuns() throws Exception {
        String suffix = "!";
        RankFunction<String> fn = env -> "rank " + env.rank() + suffix;
        Object back = Closures.deserialize(Closures.serialize(fn), Closures.filterFor(fn, List.of()), LOADER);
        assertEquals("rank 1!", ((RankFunction<?>) back).apply(RANK1));
    }

    @Test
    void aClassOutsideTheAllowListIsRejectedBeforeItIsBuilt() throws Exception {
        RankFunction<String> fn = env -> "x";
        String filter = Closures.filterFor(fn, List.of());
        ArrayList<Object> smuggled = new ArrayList<>(List.of("ok", new File("/etc/passwd")));
        assertThrows(InvalidClassException.class,
                () -> Closures.deserialize(Closures.serialize(smuggled), filter, LOADER));
    }

    @Test
    void aRankWhoseFunctionThrowsReportsOneErrorLine() throws Exception {
        RankFunction<String> fn = env -> {
            throw new IllegalArgumentException("bad\ninput");
        };
        SparkMessage.RankResult r = RankMain.execute(RANK1, new SparkMessage.FunctionBytes(Closures.filterFor(fn, List.of()),
                Closures.serialize(fn)));
        assertFalse(r.ok());
        assertEquals(1, r.rank());
        assertEquals("java.lang.IllegalArgumentException: bad input", new String(r.data(), StandardCharsets.UTF_8));
    }

    @Test
    void aRankRefusesAFunctionThatBreaksTheFilter() throws Exception {
        RankFunction<String> fn = env -> "x";
        SparkMessage.RankResult r = RankMain.execute(RANK1, new SparkMessage.FunctionBytes("!*", Closures.serialize(fn)));
        assertFalse(r.ok());
        assertTrue(new String(r.data(), StandardCharsets.UTF_8).startsWith("java.io.InvalidClassException"));
    }

    @Test
    void aRankReturnsItsSerializedResult() throws Exception {
        RankFunction<Integer> fn = env -> env.rank() * 10;
        String filter = Closures.filterFor(fn, List.of());
        SparkMessage.RankResult r = RankMain.execute(RANK1, new SparkMessage.FunctionBytes(filter, Closures.serialize(fn)));
        assertTrue(r.ok());
        assertEquals(10, Closures.deserialize(r.data(), filter, LOADER));
    }
}
