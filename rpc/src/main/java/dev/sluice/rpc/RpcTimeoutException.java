package dev.sluice.rpc;

import dev.sluice.transport.SendState;

/**
 * A call did not complete within its timeout. {@link #sendState()} tells the three cases apart:
 * {@link SendState#NOT_SENT} (the request was still queued and has been withdrawn: it is never written, the service
 * was certainly not invoked, retrying is safe), {@link SendState#SENT} (written; no response arrived) and
 * {@link SendState#UNKNOWN} (it was being written when the time ran out: the provider may have received it).
 */
public class RpcTimeoutException extends RpcException {
    private static final long serialVersionUID = 1L;
    private final SendState sendState;

    public RpcTimeoutException(String message, SendState sendState) {
        super(sendState == SendState.SENT ? 31 : 30, message, sendState == SendState.NOT_SENT, null);
        this.sendState = java.util.Objects.requireNonNull(sendState, "sendState");
    }

    public RpcTimeoutException(String message, boolean sent) {
        this(message, sent ? SendState.SENT : SendState.NOT_SENT);
    }

    /** False only when the provider cannot have seen the request ({@link SendState#NOT_SENT}). */
    public boolean wasSent() {
        return sendState != SendState.NOT_SENT;
    }

    /** What the provider can have seen of the request. */
    public SendState sendState() {
        return sendState;
    }
}
