package dev.sluice.rpc;

import java.util.concurrent.RejectedExecutionException;

/**
 * An asynchronous call's outcome was known, but the client's callback executor did not take the task that completes
 * its future: it rejected it (shut down or saturated: a {@link RejectedExecutionException}) or threw anything else
 * from {@code execute} (an {@link OutOfMemoryError} when it could not start a thread, say). The future fails with
 * this instead of never completing; the message names the executor and what it threw, and says what the outcome was
 * (for an answered call, the provider ran it). The cause is what the executor threw.
 */
public class CallbackRejectedException extends RpcException {
    private static final long serialVersionUID = 1L;

    public CallbackRejectedException(String message, RejectedExecutionException cause) {
        super(0, message, false, cause);
    }

    /** {@code cause} is whatever the executor threw instead of taking the task. */
    public CallbackRejectedException(String message, Throwable cause) {
        super(0, message, false, cause);
    }
}
