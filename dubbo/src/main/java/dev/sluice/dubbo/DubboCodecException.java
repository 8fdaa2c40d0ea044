package dev.sluice.dubbo;

import dev.sluice.transport.SluiceException;
import java.io.IOException;

/**
 * Dubbo's codec refused a message: on encode (for example a request body above the {@code payload} limit, whose
 * message names both sizes), or on decode (a frame Dubbo's codec cannot read, or input that is not a Dubbo frame at
 * all). On encode nothing was queued and the buffer was released; the Dubbo caller sees it as the cause of the
 * {@code RemotingException} thrown by {@code Channel.send}. Thrown on the encoding caller's thread or on the event
 * loop (decode). The cause is Dubbo's {@link IOException}, or null for input refused before Dubbo's codec saw it.
 */
public final class DubboCodecException extends SluiceException {
    private static final long serialVersionUID = 1L;

    DubboCodecException(String what, IOException cause) {
        super(what + ": " + cause.getMessage(), cause);
    }

    /** Input that cannot be framed at all (a wrong magic); no cause. */
    DubboCodecException(String message) {
        super(message);
    }

    @Override
    public synchronized IOException getCause() {
        return (IOException) super.getCause();
    }
}
