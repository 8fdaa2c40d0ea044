package dev.sluice.transport.dubbo;

import dev.sluice.transport.SluiceException;
import java.io.IOException;

/**
 * Dubbo's codec refused a message: on encode (for example a request body above the {@code payload} limit, whose
 * message names both sizes), or on decode (input that cannot be framed). The original {@link IOException} is the
 * cause. On encode nothing was queued and the buffer was released; the Dubbo caller sees it as the cause of the
 * {@code RemotingException} thrown by {@code Channel.send}. Thrown on the encoding caller's thread or on the event
 * loop (decode).
 */
public final class DubboCodecException extends SluiceException {
    private static final long serialVersionUID = 1L;

    DubboCodecException(String what, IOException cause) {
        super(what + ": " + cause.getMessage(), cause);
    }

    @Override
    public synchronized IOException getCause() {
        return (IOException) super.getCause();
    }
}
