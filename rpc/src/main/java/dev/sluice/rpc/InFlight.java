package dev.sluice.rpc;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The calls a {@link SluiceServer} accepted and has not answered yet, and whether it is closing: a graceful close
 * waits for {@link #quiesced()}.
 *
 * <p>Threads: any. The event loop counts a call in ({@link #started}) as it hands it to the executor, and only then
 * reads {@link #closing()} (backing the call out when it is set), so a close never reads 0 while a call it will not
 * wait for is about to run; the thread that ends a call (service thread, async completion, the loop when the
 * executor refuses it, the cleaner's thread when a discarding executor dropped it) counts it out; the closing thread
 * sets closing, then reads and waits.
 */
final class InFlight {
    private final AtomicInteger count = new AtomicInteger();
    private final CompletableFuture<Void> quiesced = new CompletableFuture<>();
    private volatile boolean closing;

    /** Counts a call in; returns how many are in flight with it (1: no other). */
    int started() {
        return count.incrementAndGet();
    }

    void finished() {
        if (count.decrementAndGet() == 0 && closing) {
            quiesced.complete(null);
        }
    }

    int count() {
        return count.get();
    }

    /** True once {@link #startClosing()} ran: new calls are refused. */
    boolean closing() {
        return closing;
    }

    void startClosing() {
        closing = true;
    }

    /** Completes when no call is in flight any more after {@link #startClosing()}. */
    CompletableFuture<Void> quiesced() {
        if (count.get() == 0) {
            quiesced.complete(null);
        }
        return quiesced;
    }
}
