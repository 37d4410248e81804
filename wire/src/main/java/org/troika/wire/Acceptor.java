package org.troika.wire;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/** The accept loop every troika service runs: one pool task per connection, until the server socket is closed. */
public final class Acceptor {
    private Acceptor() {}

    /**
     * Accepts connections on {@code server} and hands each to {@code serve} on {@code pool}; returns when the server
     * socket is closed (or accepting fails). {@code serve} owns the socket (and must authenticate before parsing).
     */
    public static void serveUntilClosed(ServerSocket server, ExecutorService pool, Consumer<Socket> serve) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                pool.submit(() -> serve.accept(s));
            } catch (IOException e) {
                return;
            }
        }
    }
}
