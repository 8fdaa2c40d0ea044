package dev.sluice.codec.dubbo;

import dev.sluice.transport.SluiceException;

/**
 * The inbound byte stream is not the Dubbo protocol (wrong magic) and cannot be resynchronised, or decoding a frame
 * threw an {@link Error}. Thrown by {@link DubboDecoder} on the event loop; the transport closes the connection with
 * this reason.
 */
public class DubboProtocolException extends SluiceException {
    private static final long serialVersionUID = 1L;

    public DubboProtocolException(String message) {
        super(message);
    }

    public DubboProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
