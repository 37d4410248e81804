package org.troika.launcher.elastic;

/** Discovery could not produce a host list: the script failed, timed out or printed something unparsable. */
public class HostDiscoveryException extends Exception {
    private static final long serialVersionUID = 1L;

    public HostDiscoveryException(String message) {
        super(message);
    }
}
