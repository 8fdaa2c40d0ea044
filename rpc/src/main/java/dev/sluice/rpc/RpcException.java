package dev.sluice.rpc;

import dev.sluice.transport.SluiceException;

/**
 * A call failed for a reason other than the service's own exception: the peer answered with an error status, or
 * the call could not be completed. {@link #status()} is the Dubbo status (0 when the failure is local), and
 * {@link #isRetryable()} says whether the same call may succeed on another provider.
 */
public class RpcException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final boolean retryable;

    public RpcException(int status, String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.retryable = retryable;
    }

    public RpcException(int status, String message) {
        this(status, message, false, null);
    }

    /** The Dubbo response status (40 bad request, 70 service error, 100 pool exhausted, …), or 0 for local. */
    public int status() {
        return status;
    }

    /** True when the service was not invoked (shutdown, not sent, pool exhausted): retrying elsewhere is safe. */
    public boolean isRetryable() {
        return retryable;
    }
}
