package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.SendState;
import dev.sluice.transport.WriteListener;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One outstanding two-way call of a {@link SluiceClient}, and the write listener of its request frame.
 *
 * <p>Threads: created and registered by the calling thread ({@link ProxyFactory}); completed exactly once, by
 * whichever of these gets it out of its {@link PendingCalls} table first:
 * <ul>
 *   <li>the event loop, with the response ({@link ClientHandler}) or a write failure ({@link #onWriteFailed},
 *       {@link #onWriteOutcomeUnknown}) or a lost connection ({@link PendingCalls#failAll});</li>
 *   <li>the timeout thread ({@link TimeoutSweeper}), when an asynchronous call times out
 *       ({@link PendingCalls#timeOut});</li>
 *   <li>the thread that closes the client ({@link SluiceClient#close()}).</li>
 * </ul>
 * Only the one that removed the call from the table completes it, so it completes once. A synchronous caller that
 * stops waiting (timeout, interrupt) removes the call itself and throws instead of completing it; when another
 * thread removed it first, the caller takes the outcome that thread completes it with
 * ({@link PendingCalls#await}). An asynchronous
 * call's caller-visible future ({@link #async}) is then completed on the client's callback executor, never on the
 * event loop or the timeout thread.
 *
 * <p>Its request frame is queued, then taken by the drain ({@link #beforeWrite}, event loop), then written
 * ({@link #onWritten}). A caller that gives up ({@link #settle}, any thread) races the drain for the queued frame
 * with one CAS: winning withdraws it (never written: "not sent" is then a fact), losing means the frame may
 * already be leaving ("maybe sent" until the write is confirmed).
 */
final class PendingCall extends CompletableFuture<Object> implements WriteListener {
    private static final Logger log = LoggerFactory.getLogger(PendingCall.class);
    private static final int QUEUED = 0;
    private static final int TAKEN = 1;
    private static final int WITHDRAWN = 2;

    final long id;
    final MethodMeta meta;
    final Connection connection;
    private final PendingCalls table;
    private final AtomicInteger writeState = new AtomicInteger(QUEUED);
    private volatile boolean sent;
    /** The caller's future of an asynchronous call; null for a synchronous one, which waits on this object. */
    volatile CompletableFuture<Object> async;
    /** When an asynchronous call times out ({@link System#nanoTime()}); unused for a synchronous one. */
    final long deadlineNanos;
    /** Written by the event loop before the call completes; read by the thread that takes the outcome. */
    Map<String, Object> responseAttachments;

    PendingCall(PendingCalls table, long id, MethodMeta meta, Connection connection, long deadlineNanos) {
        this.table = table;
        this.deadlineNanos = deadlineNanos;
        this.id = id;
        this.meta = meta;
        this.connection = connection;
    }

    @Override
    public boolean beforeWrite() {
        return writeState.compareAndSet(QUEUED, TAKEN);
    }

    @Override
    public void onWritten() {
        sent = true;
    }

    /** What the provider can have seen; withdraws the frame when it is still queued. Any thread. */
    SendState settle() {
        if (writeState.compareAndSet(QUEUED, WITHDRAWN) || writeState.get() == WITHDRAWN) {
            return SendState.NOT_SENT;
        }
        return sent ? SendState.SENT : SendState.UNKNOWN;
    }

    @Override
    public void onWriteOutcomeUnknown(Throwable cause) {
        if (!table.remove(this)) {
            return;
        }
        // Handed to the socket, then the write failed: part of the request may have reached the provider.
        fail(new ConnectionClosedException("Maybe sent: the connection to " + table.remote() + " was closed or"
                + " reset while " + meta.description + " was being written, after it was handed to the socket ("
                + cause + "); the provider may have received it", SendState.UNKNOWN, cause));
    }

    @Override
    public void onWriteFailed(Throwable cause) {
        if (!table.remove(this)) {
            return;
        }
        if (cause instanceof ConnectionClosedException || cause instanceof java.io.IOException) {
            // The connection went away under the write (closed, reset, ClosedChannelException): the same typed
            // error as for a call waiting on it, so one catch covers a lost connection.
            fail(new ConnectionClosedException("Not sent: the connection to " + table.remote()
                    + " closed before " + meta.description + " was written (" + cause + "); retry on another"
                    + " connection", false, cause));
            return;
        }
        fail(new RpcException(0, "Not sent: writing " + meta.description + " to "
                + table.remote() + " failed: " + cause, true, cause));
    }

    /** Completes with the response; its value is parsed by the waiting caller or on the callback executor. */
    void succeed(DubboResponse response) {
        responseAttachments = response.attachments();
        CompletableFuture<Object> a = async;
        if (a == null) {
            complete(response);
        } else {
            onCallbackExecutor(a, () -> {
                Object value;
                try {
                    value = table.readResult(this, response);
                } catch (RpcException e) {
                    a.completeExceptionally(e);
                    return;
                }
                a.complete(value);
            }, "the provider answered");
        }
    }

    void fail(Throwable error) {
        CompletableFuture<Object> a = async;
        if (a == null) {
            completeExceptionally(error);
        } else {
            onCallbackExecutor(a, () -> a.completeExceptionally(error), "it failed: " + error);
        }
    }

    /**
     * Fails this timed-out asynchronous call (the timeout thread). Its future completes on the callback executor, or,
     * when the executor has not started that within {@link TimeoutSweeper#HANDOFF_GRACE_MILLIS} (every thread of it
     * blocked, say, in callbacks waiting for other calls), on a {@link CallbackFallback} thread: a timeout never waits
     * for a blocked callback executor, and never completes on an event loop or the timeout thread.
     */
    void timedOut(RpcTimeoutException error, TimeoutSweeper sweeper) {
        CompletableFuture<Object> a = async;
        TimeoutSweeper.Handoff handoff = new TimeoutSweeper.Handoff(() -> a.completeExceptionally(error));
        if (onCallbackExecutor(a, handoff, "it failed: " + error)) {
            sweeper.watch(handoff);
        }
    }

    /**
     * Completes {@code a} on the callback executor. When the executor does not take the task (it rejects it: shut
     * down, saturated; or throws anything else: an {@link OutOfMemoryError} for a thread it could not start), the
     * future still completes, with a {@link CallbackRejectedException} naming the executor and what it threw, on a
     * {@link CallbackFallback} thread: never on the event loop or the timeout thread that got here, and never left
     * pending forever. Nothing the executor throws escapes to the caller (an escape would kill the timeout thread, or
     * lose the call on the event loop, which has already taken it from the table). True when the executor took it.
     */
    private boolean onCallbackExecutor(CompletableFuture<Object> a, Runnable task, String outcome) {
        Executor executor = table.callbackExecutor();
        try {
            executor.execute(task);
            return true;
        } catch (Throwable e) { // NOPMD: whatever the executor throws, the call completes
            CallbackRejectedException error = new CallbackRejectedException(meta.description + " completed ("
                    + outcome + ") but the client's callback executor " + executor + " threw " + e
                    + " instead of taking the task that completes its future. Use a callback executor that accepts"
                    + " every task.", e);
            log.warn("Callback executor {} did not take the task completing {}: {}", executor, meta.description,
                    e.toString());
            CallbackFallback.run(() -> a.completeExceptionally(error));
            return false;
        }
    }
}
