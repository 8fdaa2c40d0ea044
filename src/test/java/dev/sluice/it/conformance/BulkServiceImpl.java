package dev.sluice.it.conformance;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Provider side of {@link BulkService}. {@link #hold} counts the calls that entered and waits on a gate the scenario
 * opens (never longer than 20 s, so a broken scenario cannot hang the provider pool). Runs on provider threads.
 */
public final class BulkServiceImpl implements BulkService {
    private final CountDownLatch gate = new CountDownLatch(1);
    private final AtomicInteger entered = new AtomicInteger();

    @Override
    public String blob(int chars) {
        char[] text = new char[chars];
        Arrays.fill(text, 'x');
        return new String(text);
    }

    @Override
    public int size(String data) {
        return data == null ? -1 : data.length();
    }

    @Override
    public int hold(int ticket) {
        entered.incrementAndGet();
        try {
            if (!gate.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gate never opened for ticket " + ticket);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted holding ticket " + ticket, e);
        }
        return ticket;
    }

    /** Calls of {@link #hold} that have started on the provider. */
    public int entered() {
        return entered.get();
    }

    /** Lets every held call (and every later one) return. */
    public void open() {
        gate.countDown();
    }
}
