package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboConstants;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.DubboSerializationException;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.SendState;
import dev.sluice.transport.jfr.CallTimeoutEvent;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The table of a {@link SluiceClient}'s calls waiting for a response, keyed by request id, with their timeouts.
 *
 * <p>Threads: any. Calling threads register calls ({@link #add}) and remove those they stop waiting for; the event
 * loop removes the call a response answers ({@link #take}) and fails those of a lost connection ({@link #failAll});
 * the timer thread ({@code sluice-client-timer}) times out asynchronous calls. Whoever removes a call from the table
 * owns completing it (see {@link PendingCall}); the table itself is a {@link ConcurrentHashMap} and takes no lock.
 */
final class PendingCalls {
    private final ConcurrentHashMap<Long, PendingCall> calls = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final InetSocketAddress remote;
    private final Executor callbackExecutor;
    private final Timer timer;

    PendingCalls(InetSocketAddress remote, Executor callbackExecutor) {
        this.remote = remote;
        this.callbackExecutor = callbackExecutor;
        this.timer = new HashedWheelTimer(r -> {
            Thread t = new Thread(r, "sluice-client-timer");
            t.setDaemon(true);
            return t;
        }, 10, TimeUnit.MILLISECONDS);
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
        PendingCall call = new PendingCall(this, id, meta, connection);
        call.async = async;
        calls.put(id, call);
        return call;
    }

    /** Removes and returns the call {@code id} answers, or null when none waits (timed out, say). Event loop. */
    PendingCall take(long id) {
        return calls.remove(id);
    }

    /** Removes {@code call} if it still waits; true when the caller now owns completing it. */
    boolean remove(PendingCall call) {
        return calls.remove(call.id, call);
    }

    /** Calls waiting for a response. */
    int size() {
        return calls.size();
    }

    /**
     * Times out an asynchronous call after its timeout, on the timer thread. If the call completes first, the timeout
     * finds it gone from the table and does nothing.
     */
    void scheduleTimeout(PendingCall call) {
        call.timeout = timer.newTimeout(t -> timeOut(call), call.meta.timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Timer thread. */
    void timeOut(PendingCall call) {
        if (remove(call)) {
            call.fail(timeoutException(call));
        }
    }

    /**
     * Fails every call waiting on {@code connection} (every call when null) with a {@link ConnectionClosedException}
     * that says what the provider can have seen of it. Event loop (connection lost) or the closing thread.
     */
    void failAll(Connection connection, ConnectionClosedException cause) {
        for (PendingCall call : calls.values()) {
            if (connection == null || call.connection == connection) {
                if (remove(call)) {
                    SendState state = call.settle();
                    call.fail(new ConnectionClosedException("Connection to " + remote + " closed before "
                            + call.meta.description + " was answered (" + describe(state) + ")", state, cause));
                }
            }
        }
    }

    /** Stops the timer and fails every waiting call with {@code cause}. The closing thread. */
    void close(ConnectionClosedException cause) {
        timer.stop();
        failAll(null, cause);
    }

    /**
     * Parses a result on the thread that wants it; a value we cannot or may not read is a status-90 failure, and so
     * is anything else reading it throws (an {@link Error} from a reader included), so an asynchronous call always
     * completes.
     */
    Object readResult(PendingCall call, DubboResponse response) {
        try {
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
