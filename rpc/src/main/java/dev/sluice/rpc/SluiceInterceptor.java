package dev.sluice.rpc;

/**
 * A hook around every call of a {@link SluiceClient} or {@link SluiceServer}: tracing, metrics, authentication.
 * Registered with the builders' {@code intercept(...)}; several run in registration order for {@link #onCall} and
 * in the reverse order for {@link #onComplete} (the first registered is the outermost).
 *
 * <p><b>Threads.</b> Never an event loop, unless the user made one run the call (a server built with
 * {@code directExecutor()}). Client: {@link #onCall} on the calling thread, before the request is encoded;
 * {@link #onComplete} on the calling thread for synchronous and one-way calls, and on the client's callback executor
 * for calls returning {@code CompletableFuture} (before the caller's future completes; on the calling thread when the
 * call had already completed before the proxy returned). Server: both on the thread
 * that runs the service method (the server's executor); for a method returning a {@code CompletionStage},
 * {@link #onComplete} on the thread that completes that stage.
 *
 * <p><b>Contract.</b> {@link #onComplete} is called exactly once for every invocation whose {@link #onCall} returned
 * normally, whatever the outcome. An interceptor that throws from {@link #onCall} fails the call with an
 * {@link InterceptorException} (client: nothing is sent; server: the service is not invoked and the caller gets a
 * {@code SERVICE_ERROR} response); the interceptors that already ran see that failure in their {@link #onComplete}.
 * One that throws from {@link #onComplete} fails the call the same way, after every other interceptor saw the outcome.
 * Implementations must be thread-safe and should be quick: they run on every call.
 */
public interface SluiceInterceptor {
    /** Before the call: may read the invocation and add to {@link Invocation#attachments()}. */
    default void onCall(Invocation invocation) {
    }

    /** After the call, with its outcome. */
    default void onComplete(Invocation invocation, Outcome outcome) {
    }
}
