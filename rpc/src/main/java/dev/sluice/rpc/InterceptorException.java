package dev.sluice.rpc;

/**
 * An interceptor threw. {@link #interceptor()} names it; the cause is what it threw. When thrown from
 * {@link SluiceInterceptor#onCall} on the client the request was never sent ({@link #isRetryable()} is then true
 * only in the sense that the provider never saw it: the same interceptor will most likely throw again).
 */
public class InterceptorException extends RpcException {
    private static final long serialVersionUID = 1L;
    private final String interceptor;

    public InterceptorException(String interceptor, String message, Throwable cause) {
        super(0, message, false, cause);
        this.interceptor = interceptor;
    }

    /** The class name of the interceptor that threw. */
    public String interceptor() {
        return interceptor;
    }
}
