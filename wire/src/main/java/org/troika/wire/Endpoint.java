package org.troika.wire;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.troika.common.UsageException;

/**
 * A service address: an IP literal and a port. Text form {@code 10.0.0.1:4000} or {@code [fd00::1]:4000};
 * several are joined with commas.
 */
public record Endpoint(String address, int port) {
    public Endpoint {
        if (address == null || address.isEmpty()) {
            throw new IllegalArgumentException("empty address");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    public static Endpoint of(InetSocketAddress a) {
        return new Endpoint(a.getAddress().getHostAddress().replaceAll("%.*$", ""), a.getPort());
    }

    public InetSocketAddress socketAddress() throws UnknownHostException {
        return new InetSocketAddress(InetAddress.getByName(address), port);
    }

    /** Parses one {@code addr:port}; a usage error naming {@code what} when malformed. */
    public static Endpoint parse(String text, String what) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new UsageException(what + " '" + text + "' is not ADDRESS:PORT");
        }
        String addr = t.substring(0, colon);
        if (addr.startsWith("[") && addr.endsWith("]")) {
            addr = addr.substring(1, addr.length() - 1);
        }
        try {
            return new Endpoint(addr, Integer.parseInt(t.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new UsageException(what + " '" + text + "' is not ADDRESS:PORT with a port in 1-65535");
        }
    }

    /** Parses a comma-separated list. */
    public static List<Endpoint> parseList(String text, String what) {
        List<Endpoint> out = new ArrayList<>();
        for (String part : text.split(",")) {
            if (!part.isBlank()) {
                out.add(parse(part, what));
            }
        }
        if (out.isEmpty()) {
            throw new UsageException(what + " is empty; expected ADDRESS:PORT[,ADDRESS:PORT...]");
        }
        return List.copyOf(out);
    }

    public static String formatList(List<Endpoint> endpoints) {
        StringBuilder sb = new StringBuilder();
        for (Endpoint e : endpoints) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(e);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return (address.indexOf(':') >= 0 ? "[" + address + "]" : address) + ":" + port;
    }
}
