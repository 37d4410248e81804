package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;
import static org.troika.wire.WireTestSupport.SECRET;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Feeds the frame decoder and the body decoder many random and mutated inputs: every input must end in a clean
 * {@link IOException} (or a valid message), never another exception, a hang or a large allocation (the frame limit
 * is small here, and the body decoder checks every count against the bytes left).
 */
class FrameFuzzTest {
    private static final int LIMIT = 4096;

    @Test
    void mutatedFramesNeverCrashOrHang() {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            Random r = new Random(20261121L);
            for (int i = 0; i < 20_000; i++) {
                Protocol<?> p = WireTestSupport.PROTOCOLS.get(i % WireTestSupport.PROTOCOLS.size());
                byte[] frame = someFrame(p, r);
                int mutations = 1 + r.nextInt(4);
                for (int k = 0; k < mutations; k++) {
                    switch (r.nextInt(4)) {
                        case 0 -> {
                            if (frame.length > 0) {
                                frame[r.nextInt(frame.length)] = (byte) r.nextInt(256);
                            }
                        }
                        case 1 -> frame = java.util.Arrays.copyOf(frame, r.nextInt(frame.length + 1));
                        case 2 -> frame = java.util.Arrays.copyOf(frame, frame.length + r.nextInt(64));
                        default -> {
                            if (frame.length >= WireChannel.HEADER) {
                                ByteBuffer.wrap(frame).putInt(12, r.nextInt());
                            }
                        }
                    }
                }
                decodeQuietly(p, frame);
            }
        });
    }

    private static <M> byte[] someFrame(Protocol<M> p, Random r) throws IOException {
        List<M> all = WireTestSupport.everyMessage(p);
        return WireTestSupport.clientFrames(p, SECRET, List.of(all.get(r.nextInt(all.size()))));
    }

    @Test
    void randomStreamsNeverCrashOrHang() {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            Random r = new Random(7);
            for (int i = 0; i < 20_000; i++) {
                byte[] junk = new byte[r.nextInt(2 * LIMIT)];
                r.nextBytes(junk);
                if (junk.length > 3 && r.nextBoolean()) {
                    junk[0] = 'T';
                    junk[1] = 'K';
                    junk[2] = WireChannel.VERSION;
                }
                decodeQuietly(WireTestSupport.PROTOCOLS.get(i % WireTestSupport.PROTOCOLS.size()), junk);
            }
        });
    }

    @Test
    void theBodyDecoderSurvivesRandomBodiesOfEveryType() {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            Random r = new Random(99);
            for (int i = 0; i < 50_000; i++) {
                byte[] body = new byte[r.nextInt(64)];
                r.nextBytes(body);
                try {
                    WireTestSupport.PROTOCOLS.get(i % WireTestSupport.PROTOCOLS.size()).decode(1 + r.nextInt(24), body);
                } catch (WireException expected) {
                    // rejected cleanly
                } catch (RuntimeException | OutOfMemoryError e) {
                    fail("body decoder crashed on " + java.util.HexFormat.of().formatHex(body), e);
                }
            }
        });
    }

    private static void decodeQuietly(Protocol<?> p, byte[] bytes) {
        WireChannel<?> c = WireTestSupport.serverReading(p, bytes, LIMIT);
        try {
            for (int n = 0; n < 4; n++) {
                c.receive();
            }
        } catch (EOFException | WireException expected) {
            // rejected cleanly
        } catch (IOException e) {
            fail("unexpected I/O failure", e);
        } catch (RuntimeException | OutOfMemoryError e) {
            fail("decoder crashed on " + java.util.HexFormat.of().formatHex(bytes), e);
        }
    }
}
