package dev.sluice.transport;

/**
 * A frame began to arrive and was still incomplete when the frame timeout ran out: the peer trickles its bytes (a
 * slow-loris sender, or a link far too slow for the frame's size). The connection is closed with this reason, which
 * the transport logs and hands to {@link TransportHandler#caught}. Raised on the connection's event loop.
 */
public class FrameTimeoutException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final long waitedMillis;
    private final long timeoutMillis;
    private final int bufferedBytes;

    public FrameTimeoutException(long waitedMillis, long timeoutMillis, int bufferedBytes, Object peer) {
        super("A frame from " + peer + " has been arriving for " + waitedMillis + " ms (" + bufferedBytes
                + " bytes of it buffered), longer than the frame timeout of " + timeoutMillis + " ms; closing the"
                + " connection. A peer this slow is either misbehaving or needs a larger frame timeout.");
        this.waitedMillis = waitedMillis;
        this.timeoutMillis = timeoutMillis;
        this.bufferedBytes = bufferedBytes;
    }

    public long waitedMillis() {
        return waitedMillis;
    }

    public long timeoutMillis() {
        return timeoutMillis;
    }

    public int bufferedBytes() {
        return bufferedBytes;
    }
}
