package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.DubboSerializationException;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.SendState;
import dev.sluice.transport.jfr.CallTimeoutEvent;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The table of a {@link SluiceClient}'s calls waiting for a response, keyed by request id, with their timeouts.
 *
 * <p>Threads: any. Calling threads register calls ({@link #add}) and remove those they stop waiting for; the event
 * loop removes the call a response answers ({@link #take}) and fails those of a lost connection ({@link #failAll});
 * the JVM's timeout thread ({@code sluice-client-timeouts}, {@link TimeoutSweeper}) times out asynchronous calls.
 * Whoever removes a call from the table owns completing it (see {@link PendingCall}); removal is one
 * compare-and-set, and nothing here takes a lock.
 *
 * <p><b>Shape.</b> Ids are consecutive, so the calls in flight land in distinct slots of a fixed array indexed by
 * the id's low bits: registering and taking a call is one compare-and-set each, with no boxed key, no map node and
 * no shared counter (a {@link ConcurrentHashMap} paid all three per call, and its size counter was contended by the
 * callers and the event loop alike). A call whose slot is still held by an older one (over {@link #SLOTS} calls
 * apart) goes to an overflow map instead, so the table has no capacity limit.
 *
 * <p><b>Timeouts.</b> An asynchronous call carries its deadline. One thread for every client of the JVM
 * ({@link TimeoutSweeper}) sweeps the slots of each table with asynchronous calls waiting every
 * {@link TimeoutSweeper#SWEEP_MILLIS} ms, and times out those past their deadline; with none waiting anywhere it
 * parks until the next asynchronous call. A call therefore costs no timer entry to create and none to cancel (a
 * per-call {@code HashedWheelTimer} timeout cost two queue hand-offs per call); a timeout fires between its deadline
 * and one sweep period later, as the wheel's 10 ms tick did. Synchronous callers time out themselves.
 */
final class PendingCalls {
    /** Slots of the table: a power of two, more than the calls a client keeps in flight. */
    static final int SLOTS = 4096;
    private static final int MASK = SLOTS - 1;

    private final AtomicReferenceArray<PendingCall> slots = new AtomicReferenceArray<>(SLOTS);
    /** Calls whose slot was taken when they were registered. */
    private final ConcurrentHashMap<Long, PendingCall> overflow = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final InetSocketAddress remote;
    private final Executor callbackExecutor;
    /** In the sweep of the {@link TimeoutSweeper}: set by the caller that arms it, cleared by the sweeper. */
    final AtomicBoolean armed = new AtomicBoolean();
    private final TimeoutSweeper timeouts = TimeoutSweeper.shared();

    PendingCalls(InetSocketAddress remote, Executor callbackExecutor) {
        this.remote = remote;
        this.callbackExecutor = callbackExecutor;
    }

    /** The next request id, for calls and heartbeats alike. Any thread. */
    long nextId() {
        return ids.getAndIncrement();
    }

    InetSocketAddress remote() {
        return remote;
    }

    /** Where asynchronous calls' futures complete. */
    Executor callbackExecutor() {
        return callbackExecutor;
    }

    /**
     * Registers a call about to be sent on {@code connection} under {@code id} (from {@link #nextId()});
     * {@code async} is the caller's future of an asynchronous call, null for a synchronous one. Calling thread.
     */
    PendingCall add(long id, MethodMeta meta, Connection connection, CompletableFuture<Object> async) {
        long deadline = async == null ? 0L : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(meta.timeoutMillis);
        PendingCall call = new PendingCall(this, id, meta, connection, deadline);
        call.async = async;
        if (!slots.compareAndSet(index(id), null, call)) {
            overflow.put(id, call); // an older call still holds the slot
        }
        return call;
    }

    private static int index(long id) {
        return (int) id & MASK;
    }

    /** Removes and returns the call {@code id} answers, or null when none waits (timed out, say). Event loop. */
    PendingCall take(long id) {
        int i = index(id);
        PendingCall call = slots.get(i);
        if (call != null && call.id == id) {
            return slots.compareAndSet(i, call, null) ? call : null;
        }
        return overflow.isEmpty() ? null : overflow.remove(id);
    }

    /** Removes {@code call} if it still waits; true when the caller now owns completing it. */
    boolean remove(PendingCall call) {
        int i = index(call.id);
        if (slots.get(i) == call) {
            return slots.compareAndSet(i, call, null);
        }
        return overflow.remove(call.id, call);
    }

    /** Calls waiting for a response. Counts the table: for tests and gauges, not for every call. */
    int size() {
        return waiting().size();
    }

    /** Every waiting call, in no order: a snapshot that may miss calls added or removed meanwhile. */
    private List<PendingCall> waiting() {
        List<PendingCall> out = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            PendingCall call = slots.get(i);
            if (call != null) {
                out.add(call);
            }
        }
        out.addAll(overflow.values());
        return out;
    }

    /**
     * Arms the timeout of an asynchronous call just sent (its deadline is set): puts this table into the sweep of
     * the timeout thread if it is not in it, and starts that thread with the first asynchronous call of the JVM.
     * Calling thread.
     */
    void scheduleTimeout(PendingCall call) {
        if (!armed.get() && armed.compareAndSet(false, true)) {
            timeouts.arm(this);
        } else {
            timeouts.ensureRunning();
        }
    }

    /**
     * Times out the asynchronous calls past their deadline; returns how many asynchronous calls still wait. The
     * timeout thread.
     */
    int sweep() {
        long now = System.nanoTime();
        int waiting = 0;
        for (int i = 0; i < SLOTS; i++) {
            PendingCall call = slots.get(i);
            if (call != null && call.async != null) {
                waiting += expire(call, now);
            }
        }
        if (!overflow.isEmpty()) {
            for (PendingCall call : overflow.values()) {
                if (call.async != null) {
                    waiting += expire(call, now);
                }
            }
        }
        return waiting;
    }

    /** Times {@code call} out when its deadline has passed; 1 when it still waits, else 0. */
    private int expire(PendingCall call, long now) {
        if (now - call.deadlineNanos < 0) {
            return 1;
        }
        timeOut(call);
        return 0;
    }

    /** Times out an asynchronous call. The timeout thread. */
    void timeOut(PendingCall call) {
        if (remove(call)) {
            call.timedOut(timeoutException(call), timeouts);
        }
    }

    /**
     * Waits for the response of a synchronous call, for at most its timeout, and returns it; throws what failed the
     * call, or the timeout. When the wait ends (timeout, interrupt) but the call is no longer in the table, the
     * event loop took it first (with its answer, or a failure) and completes it at once: that outcome is the call's,
     * so it is returned or thrown, never reported as a timeout. The calling thread.
     */
    DubboResponse await(PendingCall call) throws Throwable {
        try {
            return (DubboResponse) call.get(call.meta.timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (remove(call)) {
                throw timeoutException(call);
            }
            return outcome(call);
        } catch (ExecutionException e) {
            throw e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (remove(call)) {
                throw new RpcException(0, "Interrupted while waiting for " + call.meta.description, false, e);
            }
            return outcome(call);
        }
    }

    /** The outcome of a call that another thread took from the table, which completes it right after taking it. */
    private static DubboResponse outcome(PendingCall call) throws Throwable {
        try {
            return (DubboResponse) call.join();
        } catch (CompletionException e) {
            throw e.getCause();
        }
    }

    /**
     * Fails every call waiting on {@code connection} (every call when null) with a {@link ConnectionClosedException}
     * that says what the provider can have seen of it. Event loop (connection lost) or the closing thread.
     */
    void failAll(Connection connection, ConnectionClosedException cause) {
        for (PendingCall call : waiting()) {
            if (connection == null || call.connection == connection) {
                if (remove(call)) {
                    SendState state = call.settle();
                    call.fail(new ConnectionClosedException("Connection to " + remote + " closed before "
                            + call.meta.description + " was answered (" + describe(state) + ")", state, cause));
                }
            }
        }
    }

    /**
     * Fails every waiting call with {@code cause}; the next sweep finds none and takes the table out of it. The
     * closing thread.
     */
    void close(ConnectionClosedException cause) {
        failAll(null, cause);
    }

    /**
     * Parses a result on the thread that wants it (for a described call, the {@link DescribedCalls.Answer}, the
     * service's exception included); a value we cannot or may not read is a status-90 failure, and so
     * is anything else reading it throws (an {@link Error} from a reader included), so an asynchronous call always
     * completes.
     */
    Object readResult(PendingCall call, DubboResponse response) {
        try {
            if (call.meta.answers) {
                return response.hasException()
                        ? new DescribedCalls.Answer(null, response.exception(), response.attachments())
                        : new DescribedCalls.Answer(response.takeValue(call.meta.valueType), null,
                                response.attachments());
            }
            return response.takeValue(call.meta.valueType);
        } catch (DubboSerializationException e) {
            throw statusFailure(call, remote, DubboConstants.STATUS_CLIENT_ERROR, e.getMessage(), false, e);
        } catch (RuntimeException | Error e) { // NOPMD: a reader's Error must fail the call, not lose it
            throw statusFailure(call, remote, DubboConstants.STATUS_CLIENT_ERROR,
                    "the result could not be read: " + e, false, e);
        }
    }

    /** A call that ended with a Dubbo status other than OK: sent by the peer, or ours for an answer we cannot read. */
    static RpcException statusFailure(PendingCall call, Object peer, int status, String text, boolean retryable,
                                      Throwable cause) {
        return new RpcException(status, call.meta.description + " failed at " + peer + " with status " + status + ": "
                + text, retryable, cause);
    }

    /** Settles what the provider can have seen of a timed-out call; a call still queued is withdrawn first. */
    RpcTimeoutException timeoutException(PendingCall call) {
        SendState state = call.settle();
        CallTimeoutEvent event = new CallTimeoutEvent();
        if (event.shouldCommit()) {
            event.method = call.meta.description;
            event.sendState = state.name();
            event.timeout = call.meta.timeoutMillis;
            event.remoteAddress = String.valueOf(remote);
            event.commit();
        }
        switch (state) {
            case NOT_SENT:
                return new RpcTimeoutException("Not sent: " + call.meta.description + " was still queued for "
                        + remote + " after " + call.meta.timeoutMillis + " ms (connection slow or"
                        + " not writable) and has been withdrawn: it is never written, the provider never saw it",
                        state);
            case SENT:
                return new RpcTimeoutException("No response: " + call.meta.description + " was sent to "
                        + remote + " but no response arrived within " + call.meta.timeoutMillis
                        + " ms", state);
            default:
                return new RpcTimeoutException("Maybe sent: " + call.meta.description + " was being written to "
                        + remote + " when its " + call.meta.timeoutMillis + " ms ran out (handed to"
                        + " the socket, write not confirmed): the provider may have received it", state);
        }
    }

    private static String describe(SendState state) {
        switch (state) {
            case NOT_SENT:
                return "not sent";
            case SENT:
                return "request sent, no response";
            default:
                return "maybe sent: the request was being written";
        }
    }
}
