package dev.sluice.it.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * A service whose every method carries the caller's call id, so the provider can record each execution and a test
 * can compare what ran with what each caller was told (run once, not sent, no response).
 */
public interface CountedService {
    /** Answers {@code value}. */
    String echo(long id, String value);

    /** Answers {@code count} strings {@code "item0"}, {@code "item1"}, …. */
    List<String> items(long id, int count);

    /** Answers {@code "async:" + value} through a future. */
    CompletableFuture<String> async(long id, String value);

    /** Records the id of every call before it answers; runs on the server's service threads. */
    final class Impl implements CountedService {
        private final LongConsumer executed;

        public Impl(LongConsumer executed) {
            this.executed = Objects.requireNonNull(executed, "executed");
        }

        @Override
        public String echo(long id, String value) {
            executed.accept(id);
            return value;
        }

        @Override
        public List<String> items(long id, int count) {
            executed.accept(id);
            List<String> items = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                items.add("item" + i);
            }
            return items;
        }

        @Override
        public CompletableFuture<String> async(long id, String value) {
            executed.accept(id);
            return CompletableFuture.completedFuture("async:" + value);
        }
    }
}
