package dev.sluice.dubbo;

import dev.sluice.transport.WriteListener;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.support.DefaultFuture;

/**
 * One message on its way out: what the encoder needs (the message and the Dubbo channel whose URL drives Dubbo's
 * codec) and the listener of its write, in one object, so a send allocates one object besides the frame.
 *
 * <p>Created on the sending thread; {@link #beforeWrite} and the outcome ({@link #onWritten}, {@link #onWriteFailed}
 * or {@link #onWriteOutcomeUnknown}, once) run on the event loop; {@link #await} and {@link #withdraw} run on the
 * sending thread, never on the loop. {@link #withdraw} and {@link #beforeWrite} race for a queued message with one
 * CAS: either it is withdrawn and never written, or it is on its way to the socket.
 *
 * <p>With Dubbo's default {@code sent=false} nobody waits for the write: Dubbo's {@code DefaultFuture} times the call
 * out by itself, and one that times out before its request was written tells the caller "Sending request timeout in
 * client-side" (not sent), which a failover cluster retries elsewhere. So {@link #beforeWrite} also withdraws a
 * two-way request whose future is gone (timed out, or cancelled): written late, it would run a call its caller was
 * told was not sent, or run it twice (docs/reliability.md D24e).
 */
final class OutboundMessage implements WriteListener {
    final SluiceChannel channel;
    final Object message;
    /** Non-null when the sender waits for the write ({@code send(message, sent=true)}). */
    private final CountDownLatch done;
    private static final int QUEUED = 0;
    private static final int TAKEN = 1;
    private static final int WITHDRAWN = 2;

    private volatile Throwable failure;
    /** The failure came after the message was handed to the socket: the peer may have part or all of it. */
    private volatile boolean maybeSent;
    private final AtomicInteger state = new AtomicInteger(QUEUED);

    OutboundMessage(SluiceChannel channel, Object message, boolean awaited) {
        this.channel = channel;
        this.message = message;
        this.done = awaited ? new CountDownLatch(1) : null;
    }

    boolean awaited() {
        return done != null;
    }

    /** Event loop: true when the message goes to the socket now; false when it was withdrawn (never written). */
    @Override
    public boolean beforeWrite() {
        if (abandoned()) {
            state.compareAndSet(QUEUED, WITHDRAWN);
            return false;
        }
        return state.compareAndSet(QUEUED, TAKEN);
    }

    /** A two-way call whose Dubbo future is gone: nobody waits for its answer, its caller was told it failed. */
    private boolean abandoned() {
        if (!(message instanceof Request)) {
            return false;
        }
        Request request = (Request) message;
        return request.isTwoWay() && !request.isEvent() && DefaultFuture.getFuture(request.getId()) == null;
    }

    /** Takes the message back if the write queue has not taken it yet; true then: it is never written. */
    boolean withdraw() {
        return state.compareAndSet(QUEUED, WITHDRAWN);
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
        channel.writeFailed(message, cause, false);
        if (done != null) {
            done.countDown();
        }
    }

    @Override
    public void onWriteOutcomeUnknown(Throwable cause) {
        maybeSent = true;
        failure = cause;
        channel.writeFailed(message, cause, true);
        if (done != null) {
            done.countDown();
        }
    }

    /** True when the write failed after the message was handed to the socket. */
    boolean maybeSent() {
        return maybeSent;
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
