package dev.sluice.rpc;

/**
 * A call did not complete within its timeout. {@link #wasSent()} tells the two cases apart: "not sent" (the
 * request never left this process: still queued, so the service was certainly not invoked and retrying is safe)
 * and "no response" (the request was written; the service may or may not have run).
 */
public class RpcTimeoutException extends RpcException {
    private static final long serialVersionUID = 1L;
    private final boolean sent;

    public RpcTimeoutException(String message, boolean sent) {
        super(sent ? 31 : 30, message, !sent, null);
        this.sent = sent;
    }

    public boolean wasSent() {
        return sent;
    }
}
