package dev.sluice.transport;

/**
 * A call was refused before it was sent because its connection is stalled ({@link Connection#isStalled()}): the
 * peer holds the connection open but answered neither the calls written to it nor a liveness probe within the stall
 * timeout. The peer cannot have seen this call ({@link SendState#NOT_SENT}), so retrying it elsewhere is safe. The
 * connection stays open; it is usable again as soon as the peer sends anything.
 */
public class ConnectionStalledException extends SluiceException {
    private static final long serialVersionUID = 1L;

    public ConnectionStalledException(String message) {
        super(message);
    }

    /** Always false: a stalled connection refuses the call before encoding it. */
    public boolean wasSent() {
        return false;
    }

    /** Always {@link SendState#NOT_SENT}. */
    public SendState sendState() {
        return SendState.NOT_SENT;
    }
}
