package org.troika.wire;

/**
 * The service answered with a busy hello: it is at its bound of connections that have not authenticated yet (or of
 * connections in all). Nothing was sent; {@link WireChannel#connectAny} retries with a short random back-off until its
 * timeout.
 */
public final class ServiceBusyException extends WireException {
    private static final long serialVersionUID = 1L;

    public ServiceBusyException(String message) {
        super(message);
    }
}
