package dev.sluice.examples.standalone;

import java.util.concurrent.CompletableFuture;

/**
 * The server's implementation of {@link Greeter}. Thread-safe: the server runs it on its service pool
 * ({@code sluice-service-N} threads), many calls at once.
 */
public final class GreeterImpl implements Greeter {
    @Override
    public Greeting greet(String name) {
        return new Greeting("Hello, " + name + "!", Thread.currentThread().getName());
    }

    @Override
    public CompletableFuture<Greeting> greetLater(String name) {
        String servedBy = Thread.currentThread().getName();
        // Any executor would do; the server sends the response when the future completes.
        return CompletableFuture.supplyAsync(() -> new Greeting("Hello later, " + name + "!", servedBy));
    }
}
