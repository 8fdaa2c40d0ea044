package dev.sluice.rpc;

import java.util.concurrent.RejectedExecutionException;

/**
 * An asynchronous call's outcome was known, but the client's callback executor rejected the task that completes its
 * future (the executor is shut down or saturated). The future fails with this instead of never completing; the
 * message says what the outcome was (for an answered call, the provider ran it). The cause is the executor's
 * {@link RejectedExecutionException}.
 */
public class CallbackRejectedException extends RpcException {
    private static final long serialVersionUID = 1L;

    public CallbackRejectedException(String message, RejectedExecutionException cause) {
        super(0, message, false, cause);
    }
}
