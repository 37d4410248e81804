package org.troika.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.troika.wire.WireTestSupport.OTHER;
import static org.troika.wire.WireTestSupport.SECRET;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A client doing its own I/O with {@link ClientSession} is a client like {@link WireChannel}'s, for a WireServer. */
@Timeout(60)
class ClientSessionTest {
    @Test
    void aSessionRegistersAtAnEventServerAndOpensItsAnswer() throws Exception {
        BlockingQueue<RelayMessage> got = new LinkedBlockingQueue<>();
        try (WireServer<RelayMessage> server = WireServer.startEvents("t", Protocol.RELAY, SECRET,
                List.of(InetAddress.getLoopbackAddress()), WireServer.Limits.DEFAULT, new WireServer.Events<>() {
                    @Override
                    public void received(WireConnection<RelayMessage> c, RelayMessage m) throws IOException {
                        got.add(m);
                        c.send(new RelayMessage.Pong("server"));
                    }

                    @Override
                    public void closed(WireConnection<RelayMessage> c, IOException cause) { }
                });
                Socket s = new Socket(server.endpoints().get(0).address(), server.endpoints().get(0).port())) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] hello = new byte[ClientSession.SERVER_HELLO_LEN];
            in.readFully(hello);
            ClientSession<RelayMessage> session = new ClientSession<>(Protocol.RELAY, SECRET, hello);
            s.getOutputStream().write(session.clientHello());
            s.getOutputStream().write(session.seal(new RelayMessage.Ping("client")));
            s.getOutputStream().write(session.seal(new RelayMessage.Heartbeat(7)));
            assertEquals(new RelayMessage.Ping("client"), got.poll(10, TimeUnit.SECONDS));
            assertEquals(new RelayMessage.Heartbeat(7), got.poll(10, TimeUnit.SECONDS));
            byte[] frame = new byte[256];
            in.readFully(frame, 0, ClientSession.HEADER);
            int length = session.frameLength(frame, 0);
            in.readFully(frame, ClientSession.HEADER, length - ClientSession.HEADER);
            assertEquals(new RelayMessage.Pong("server"), session.open(frame, 0));
        }
    }

    @Test
    void aSessionUnderAnotherKeyIsRefusedAndAForgedFrameDoesNotOpen() throws Exception {
        byte[] hello = Handshake.serverHello(Protocol.RELAY, WireTestSupport.SERVER_NONCE);
        ClientSession<RelayMessage> wrong = new ClientSession<>(Protocol.RELAY, OTHER, hello);
        assertThrows(WireException.class, () -> Handshake.checkClientHello(Protocol.RELAY, SECRET,
                WireTestSupport.SERVER_NONCE, wrong.clientHello()));
        byte[] forged = wrong.seal(new RelayMessage.Heartbeat(1)); // a client frame, not the server's
        assertThrows(WireException.class, () -> wrong.open(forged, 0));
        assertThrows(ServiceBusyException.class, () -> new ClientSession<>(Protocol.RELAY, SECRET,
                Handshake.busyHello()));
    }
}
