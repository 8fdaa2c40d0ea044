package dev.sluice.codec.dubbo;

import dev.sluice.transport.SluiceException;

/**
 * A value could not be serialized into a request (for example a class that is not {@link java.io.Serializable},
 * which Dubbo's fastjson2 features refuse). Thrown on the caller's thread by {@link DubboEncoder}; nothing was
 * queued.
 */
public class DubboSerializationException extends SluiceException {
    private static final long serialVersionUID = 1L;

    public DubboSerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
