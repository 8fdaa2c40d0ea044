package dev.sluice.rpc;

/**
 * A synchronous call was made on a Netty event loop, where waiting for the response would block every connection of
 * that loop (and, on the client's own loop, keep the response from ever being read). Nothing was sent; make the call
 * from another thread, or declare the method returning {@code CompletableFuture}. Thrown on the calling thread.
 */
public class BlockingCallException extends RpcException {
    private static final long serialVersionUID = 1L;

    public BlockingCallException(String message) {
        super(0, message, false, null);
    }
}
