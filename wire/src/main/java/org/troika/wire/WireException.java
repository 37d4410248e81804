package org.troika.wire;

import java.io.IOException;

/**
 * A frame or connection that must be dropped: bad MAC, wrong version, oversized or truncated frame, replay, malformed
 * body. Nothing from such a frame is acted upon.
 */
public class WireException extends IOException {
    private static final long serialVersionUID = 1L;

    public WireException(String message) {
        super(message);
    }
}
