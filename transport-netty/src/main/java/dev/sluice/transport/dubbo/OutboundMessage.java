package dev.sluice.transport.dubbo;

import dev.sluice.transport.WriteListener;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One message on its way out: what the encoder needs (the message and the Dubbo channel whose URL drives Dubbo's
 * codec) and the listener of its write, in one object, so a send allocates one object besides the frame.
 *
 * <p>Created on the sending thread; {@link #onWritten}/{@link #onWriteFailed} run on the event loop (once);
 * {@link #await} runs on the sending thread, never on the loop.
 */
final class OutboundMessage implements WriteListener {
    final SluiceChannel channel;
    final Object message;
    /** Non-null when the sender waits for the write ({@code send(message, sent=true)}). */
    private final CountDownLatch done;
    private volatile Throwable failure;

    OutboundMessage(SluiceChannel channel, Object message, boolean awaited) {
        this.channel = channel;
        this.message = message;
        this.done = awaited ? new CountDownLatch(1) : null;
    }

    boolean awaited() {
        return done != null;
    }

    @Override
    public void onWritten() {
        channel.written(message);
        if (done != null) {
            done.countDown();
        }
    }

    @Override
    public void onWriteFailed(Throwable cause) {
        failure = cause;
        channel.writeFailed(message, cause);
        if (done != null) {
            done.countDown();
        }
    }

    /** Waits for the write's outcome; true when it came within {@code timeoutMillis}. */
    boolean await(long timeoutMillis) throws InterruptedException {
        return done.await(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Why the write failed, or null (written, or not finished). */
    Throwable failure() {
        return failure;
    }
}
