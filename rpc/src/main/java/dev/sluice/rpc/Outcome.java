package dev.sluice.rpc;

import dev.sluice.codec.dubbo.internal.DubboConstants;

/** How a call ended, as an interceptor sees it. Immutable. */
public final class Outcome {
    /** A bounded classification of an outcome, fit for a metric tag. */
    public enum Kind {
        /** The service returned a value. */
        SUCCESS,
        /** The service threw its own exception (delivered to the caller as such, Dubbo status OK). */
        APPLICATION_EXCEPTION,
        /** The call timed out ({@link RpcTimeoutException}). */
        TIMEOUT,
        /** Anything else: an error status, a lost connection, a call not sent, an interceptor that threw. */
        FAILURE
    }

    private final Kind kind;
    private final Object value;
    private final Throwable exception;
    private final int status;
    private final long durationNanos;

    Outcome(Kind kind, Object value, Throwable exception, int status, long durationNanos) {
        this.kind = kind;
        this.value = value;
        this.exception = exception;
        this.status = status;
        this.durationNanos = durationNanos;
    }

    /** Classifies a client-side outcome from what the caller gets. */
    static Outcome client(Object value, Throwable error, long durationNanos) {
        if (error == null) {
            return new Outcome(Kind.SUCCESS, value, null, DubboConstants.STATUS_OK, durationNanos);
        }
        if (error instanceof RpcTimeoutException) {
            return new Outcome(Kind.TIMEOUT, null, error, DubboConstants.STATUS_CLIENT_TIMEOUT, durationNanos);
        }
        if (error instanceof RpcException) {
            return new Outcome(Kind.FAILURE, null, error, ((RpcException) error).status(), durationNanos);
        }
        if (error instanceof dev.sluice.transport.SluiceException) {
            return new Outcome(Kind.FAILURE, null, error, 0, durationNanos);
        }
        // Anything else is what the provider's service threw, delivered as a normal (status OK) response.
        return new Outcome(Kind.APPLICATION_EXCEPTION, null, error, DubboConstants.STATUS_OK, durationNanos);
    }

    public Kind kind() {
        return kind;
    }

    /** The result value (for a success), else {@code null}. */
    public Object value() {
        return value;
    }

    /** The exception the caller gets (or the service threw), {@code null} for a success. */
    public Throwable exception() {
        return exception;
    }

    /** The Dubbo response status: 20 (OK) for a value or a service's exception, else the error's, 0 when local. */
    public int status() {
        return status;
    }

    /** From the start of the call (before the first interceptor) to its outcome. */
    public long durationNanos() {
        return durationNanos;
    }

    public boolean isSuccess() {
        return kind == Kind.SUCCESS;
    }

    @Override
    public String toString() {
        return kind + " (status " + status + ", " + durationNanos / 1000 + " µs"
                + (exception == null ? "" : ", " + exception) + ")";
    }
}
