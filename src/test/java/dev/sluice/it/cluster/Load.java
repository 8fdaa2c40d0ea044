package dev.sluice.it.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.dubbo.rpc.RpcException;

/**
 * The consumer's load in the cluster scenario: {@code callers} threads, each calling {@link ClusterService#call}
 * in a closed loop with a fresh call id until {@link #stop()}, and recording every call's id, start, end and
 * outcome. A call is <em>lost</em> when it has not returned, with an answer or an error, by the time the callers
 * are given up on ({@link #awaitCallers}).
 *
 * <p>Thread-safe: the callers record concurrently; the scenario's main thread starts, stops and reads.
 */
final class Load {
    /** Outcome of a call whose answer was its own id. */
    static final String OK = "ok";
    /** Outcome of a call whose answer was some other number. */
    static final String WRONG = "wrong-answer";

    /** One finished call; times are {@link System#nanoTime()}. */
    record Call(long id, long startNanos, long endNanos, String outcome) {
        long millis() {
            return TimeUnit.NANOSECONDS.toMillis(endNanos - startNanos);
        }

        boolean ok() {
            return OK.equals(outcome);
        }
    }

    private static final String[] RPC_CODES = {"unknown", "network", "timeout", "biz", "forbidden", "serialization",
        "no-invoker-after-filter", "limit-exceeded", "timeout-terminate", "registry", "router-cache-not-built",
        "method-not-found", "validation", "authorization"};

    private final ClusterService service;
    private final List<Thread> callers = new ArrayList<>();
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentLinkedQueue<Call> finished = new ConcurrentLinkedQueue<>();
    private final Map<Long, Long> inFlight = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Throwable> crashes = new ConcurrentLinkedQueue<>();
    private final AtomicLong succeeded = new AtomicLong();
    private volatile boolean running;

    Load(ClusterService service, int callerCount) {
        this.service = service;
        for (int i = 0; i < callerCount; i++) {
            Thread t = new Thread(this::callLoop, "caller-" + i);
            t.setDaemon(true);
            callers.add(t);
        }
    }

    void start() {
        running = true;
        callers.forEach(Thread::start);
    }

    /** Callers finish the call they are in and stop. */
    void stop() {
        running = false;
    }

    /**
     * Waits up to {@code limitMillis} in all for the callers to finish; returns how many are still inside a call
     * (their calls count as lost).
     */
    int awaitCallers(long limitMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMillis);
        int stuck = 0;
        for (Thread t : callers) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left > 0) {
                t.join(left);
            }
            if (t.isAlive()) {
                stuck++;
            }
        }
        return stuck;
    }

    /** Call ids handed out so far: calls sent (or about to be). */
    long sent() {
        return ids.get();
    }

    /** Calls that returned their own id so far. */
    long succeeded() {
        return succeeded.get();
    }

    List<Call> finished() {
        return new ArrayList<>(finished);
    }

    /** Ids of calls started and not returned (yet). */
    List<Long> inFlight() {
        return new ArrayList<>(inFlight.keySet());
    }

    /** A caller thread that died of something other than a call's outcome; must stay empty. */
    List<Throwable> crashes() {
        return new ArrayList<>(crashes);
    }

    private void callLoop() {
        try {
            while (running) {
                long id = ids.incrementAndGet();
                long start = System.nanoTime();
                inFlight.put(id, start);
                String outcome;
                try {
                    long answer = service.call(id);
                    outcome = answer == id ? OK : WRONG;
                    if (answer == id) {
                        succeeded.incrementAndGet();
                    }
                } catch (RuntimeException e) {
                    outcome = errorKey(e);
                }
                finished.add(new Call(id, start, System.nanoTime(), outcome));
                inFlight.remove(id);
            }
        } catch (Throwable t) {
            crashes.add(t);
        }
    }

    /** {@code RpcException/<code name>} for Dubbo's errors, else the exception's simple class name. */
    static String errorKey(Throwable e) {
        if (e instanceof RpcException) {
            int code = ((RpcException) e).getCode();
            return "RpcException/" + (code >= 0 && code < RPC_CODES.length ? RPC_CODES[code] : "code-" + code);
        }
        return e.getClass().getSimpleName();
    }
}
