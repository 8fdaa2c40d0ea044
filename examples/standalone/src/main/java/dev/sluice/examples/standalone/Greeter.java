package dev.sluice.examples.standalone;

import java.util.concurrent.CompletableFuture;

/**
 * The service of the standalone example: a plain Java interface, shared by server and client. Nothing in it is
 * Sluice-specific; a Dubbo 3.3 consumer with {@code serialization=fastjson2} can call it too.
 */
public interface Greeter {
    /** Answers on the server's service pool; the reply is a plain object. */
    Greeting greet(String name);

    /** Asynchronous on both sides: the server completes the future later, the client gets it at once. */
    CompletableFuture<Greeting> greetLater(String name);
}
