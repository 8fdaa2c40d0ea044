package dev.sluice.transport;

/**
 * The connection already holds more unwritten bytes (queued, or in the channel waiting for the socket) than
 * {@link TransportOptions#pendingBytesCap()} allows: the peer is not reading fast enough. Nothing was queued (not
 * sent); back off or fail over to another connection. Until the backlog drains to half the cap, the connection
 * also stops reading from that peer.
 */
public class PendingBytesExceededException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final long pendingBytes;
    private final int messageBytes;
    private final long cap;

    public PendingBytesExceededException(long pendingBytes, int messageBytes, long cap) {
        super("Not sent: a frame charged " + messageBytes + " bytes (its buffer plus the per-frame overhead) would"
                + " exceed the connection's pending-bytes cap of " + cap
                + " (" + pendingBytes + " bytes already queued and not yet written); the peer is reading too slowly."
                + " Retry later, use another connection, or raise pendingBytesCap.");
        this.pendingBytes = pendingBytes;
        this.messageBytes = messageBytes;
        this.cap = cap;
    }

    public long pendingBytes() {
        return pendingBytes;
    }

    public int messageBytes() {
        return messageBytes;
    }

    public long cap() {
        return cap;
    }
}
