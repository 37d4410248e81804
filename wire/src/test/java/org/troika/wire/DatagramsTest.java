package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class DatagramsTest {
    private final Secret key = Secret.generate();
    private final Datagrams.Sealer<ProgressMessage> sealer = new Datagrams.Sealer<>(Protocol.PROGRESS, key);

    private Datagrams.Opener<ProgressMessage> opener(int senders) {
        return new Datagrams.Opener<>(Protocol.PROGRESS, key, senders);
    }

    @Test
    void aSealedDatagramOpensOnceAndOnlyNewerOnesOfItsSenderFollow() throws Exception {
        Datagrams.Opener<ProgressMessage> o = opener(4);
        byte[] first = sealer.seal(new ProgressMessage.Report("one"));
        byte[] second = sealer.seal(new ProgressMessage.Report("two \u00e9"));
        byte[] third = sealer.seal(new ProgressMessage.Report("three"));
        assertEquals(new ProgressMessage.Report("one"), o.open(first, 0, first.length).message());
        Datagrams.Repeated again = assertThrows(Datagrams.Repeated.class, () -> o.open(first, 0, first.length));
        assertEquals(sealer.sender(), again.sender());
        assertEquals(1, again.seq());
        assertEquals(new ProgressMessage.Report("three"), o.open(third, 0, third.length).message());
        WireException late = assertThrows(WireException.class, () -> o.open(second, 0, second.length));
        assertTrue(late.getMessage().contains("replayed or late"), late.getMessage());
        // at an offset inside a larger buffer
        byte[] fourth = sealer.seal(new ProgressMessage.Report("four"));
        byte[] padded = new byte[fourth.length + 10];
        System.arraycopy(fourth, 0, padded, 7, fourth.length);
        assertEquals(new ProgressMessage.Report("four"), o.open(padded, 7, fourth.length).message());
        assertEquals(1, o.senders());
    }

    @Test
    void everyAlteredByteAndEveryOtherKeyOrProtocolIsRefused() throws Exception {
        byte[] d = sealer.seal(new ProgressMessage.Report("progress"));
        for (int i = 0; i < d.length; i++) {
            byte[] bad = d.clone();
            bad[i] ^= 0x01;
            Datagrams.Opener<ProgressMessage> o = opener(4);
            assertThrows(WireException.class, () -> o.open(bad, 0, bad.length), "byte " + i + " altered");
            assertEquals(0, o.senders(), "nothing is remembered of a datagram that does not verify");
        }
        Datagrams.Opener<ProgressMessage> o = opener(4);
        for (int len : new int[] {0, 1, Datagrams.HEADER + Datagrams.MAC_LEN - 1, d.length - 1}) {
            assertThrows(WireException.class, () -> o.open(Arrays.copyOf(d, len), 0, len), len + " bytes");
        }
        byte[] big = new byte[Datagrams.MAX_DATAGRAM + 1];
        assertThrows(WireException.class, () -> o.open(big, 0, big.length));
        byte[] otherKey = new Datagrams.Sealer<>(Protocol.PROGRESS, Secret.generate())
                .seal(new ProgressMessage.Report("x"));
        assertThrows(WireException.class, () -> o.open(otherKey, 0, otherKey.length));
        byte[] otherProtocol = new Datagrams.Sealer<>(Protocol.ELASTIC, key)
                .seal(new ElasticMessage.RankLeft(1, 2, 3));
        WireException e = assertThrows(WireException.class, () -> o.open(otherProtocol, 0, otherProtocol.length));
        assertTrue(e.getMessage().contains("elastic protocol"), e.getMessage());
        assertEquals(new ProgressMessage.Report("progress"), o.open(d, 0, d.length).message(), "the original still opens");
    }

    @Test
    void senderIdsAreRandomAndNewSendersPastTheBoundAreRefused() throws Exception {
        Datagrams.Opener<ProgressMessage> o = opener(2);
        for (int i = 0; i < 2; i++) {
            byte[] d = new Datagrams.Sealer<>(Protocol.PROGRESS, key).seal(new ProgressMessage.Report("r" + i));
            o.open(d, 0, d.length);
        }
        byte[] third = new Datagrams.Sealer<>(Protocol.PROGRESS, key).seal(new ProgressMessage.Report("r3"));
        assertThrows(WireException.class, () -> o.open(third, 0, third.length));
        assertEquals(2, o.senders());
        assertTrue(new Datagrams.Sealer<>(Protocol.PROGRESS, key).sender() != sealer.sender());
        assertThrows(IllegalArgumentException.class,
                () -> sealer.seal(new ProgressMessage.Report("x".repeat(Datagrams.MAX_BODY))));
    }
}
