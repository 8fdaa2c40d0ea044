package dev.sluice.benchmark;

import dev.sluice.benchmark.async.AsyncUserService;
import dev.sluice.benchmark.latency.CallLatency;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The asynchronous workload: the same four calls through {@link AsyncUserService} (methods returning
 * {@link CompletableFuture}), with a fixed number of calls in flight per benchmark thread.
 *
 * <p>Each thread keeps a window of {@link #inflight} calls. One benchmark invocation waits for the oldest call of the
 * window to finish and issues a new call in its slot, so in steady state every thread has {@code inflight} calls
 * outstanding at all times (also across iteration boundaries: the window is per trial) and one invocation is one
 * completed call: JMH's ops/ms is calls completed per millisecond, and the gc profiler's B/op is allocation per call.
 * Each thread's window is filled with calls of the benchmark's own method when the trial starts (before the first
 * warm-up iteration), so even the first invocation waits for a real call; the windows are drained at the end of the
 * trial, before the client closes.
 *
 * <p>Latency: each call's time from just before it is issued to the moment its future completes, on the thread that
 * completes it (a {@code whenComplete} action per call, which allocates about 70 bytes of the B/op), recorded in
 * {@link CallLatency}. The wait for the oldest call is bounded by the call timeout.
 *
 * <p>Run only in Throughput mode: a SampleTime sample would time the wait for the oldest call, not a call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(4)
public class AsyncUserServiceBenchmark {

    /** The {@link Targets} name. */
    @Param(Targets.BASELINE)
    public String target;

    @Param("10.253.0.1")
    public String host;

    @Param("20880")
    public int port;

    @Param("1000")
    public int timeoutMs;

    /** Calls in flight per benchmark thread. */
    @Param("64")
    public int inflight;

    private final AtomicInteger counter = new AtomicInteger();
    private BenchTarget.AsyncClient client;
    AsyncUserService service;

    @Setup(Level.Trial)
    public void connect() throws Exception {
        if (inflight < 1) {
            throw new IllegalArgumentException("inflight must be >= 1, got " + inflight);
        }
        client = Targets.get(target).connectAsync(new BenchTarget.ClientConfig(host, port, timeoutMs));
        service = client.service();
    }

    /** Every thread's window, so the last thread can drain them all before the client closes. */
    private final java.util.Queue<Window> windows = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * Runs once, after every benchmark thread has finished its last invocation (JMH tears a benchmark-scoped state
     * down after the threads are done with it): lets every call still in flight finish, then closes the client.
     */
    @TearDown(Level.Trial)
    public void close() throws Exception {
        try {
            for (Window w : windows) {
                w.drain();
            }
        } finally {
            if (client != null) {
                client.close();
            }
        }
    }

    /** One slot of a thread's window: the call's start time and the future that completes after it is recorded. */
    static final class Slot implements BiConsumer<Object, Throwable> {
        long start;
        CompletableFuture<?> done;

        @Override
        public void accept(Object value, Throwable error) {
            if (error == null) {
                CallLatency.since(start);
            }
        }
    }

    /** A benchmark thread's window of calls in flight. */
    @State(Scope.Thread)
    public static class Window {
        Slot[] slots;
        int next;
        long timeoutMs;

        /** Creates the slots and fills each with a call of the method this trial measures. */
        @Setup(Level.Trial)
        public void setup(AsyncUserServiceBenchmark b, BenchmarkParams params) {
            String benchmark = params.getBenchmark();
            fill(b, benchmark.substring(benchmark.lastIndexOf('.') + 1));
        }

        void fill(AsyncUserServiceBenchmark b, String method) {
            slots = new Slot[b.inflight];
            timeoutMs = b.timeoutMs;
            for (int i = 0; i < slots.length; i++) {
                slots[i] = new Slot();
            }
            b.windows.add(this);
            for (int i = 0; i < slots.length; i++) {
                Slot s = slots[next];
                s.start = System.nanoTime();
                put(s, b.call(method));
            }
        }

        /** Waits for the call in the next slot (if any) and returns that slot, ready to be reused. */
        Slot take() throws InterruptedException, ExecutionException, TimeoutException {
            Slot s = slots[next];
            if (s.done != null) {
                s.done.get(timeoutMs, TimeUnit.MILLISECONDS);
                s.done = null;
            }
            s.start = System.nanoTime();
            return s;
        }

        /** Puts {@code call} (issued after {@link #take}) in the slot and moves on. */
        void put(Slot s, CompletableFuture<?> call) {
            s.done = call.whenComplete(s);
            next = next + 1 == slots.length ? 0 : next + 1;
        }

        /** Lets every call of the trial finish (called before the client closes). */
        void drain() throws Exception {
            for (Slot s : slots) {
                if (s.done != null) {
                    try {
                        s.done.get(timeoutMs, TimeUnit.MILLISECONDS);
                    } catch (ExecutionException e) {
                        // after the last iteration: a failure here is not part of any measurement
                    } finally {
                        s.done = null;
                    }
                }
            }
        }
    }

    /** The call a window is filled with: the same as the named benchmark method issues. */
    CompletableFuture<?> call(String method) {
        int n = counter.getAndIncrement();
        return switch (method) {
            case "existUser" -> service.existUser(String.valueOf(n));
            case "createUser" -> service.createUser(new UserServiceServerImpl().getUser(n));
            case "getUser" -> service.getUser(n);
            case "listUser" -> service.listUser(n);
            default -> throw new IllegalArgumentException("no async call for benchmark method " + method);
        };
    }

    @Benchmark
    public Slot existUser(Window w) throws Exception {
        String email = String.valueOf(counter.getAndIncrement());
        Slot s = w.take();
        w.put(s, service.existUser(email));
        return s;
    }

    @Benchmark
    public Slot createUser(Window w) throws Exception {
        org.apache.dubbo.benchmark.bean.User user = new UserServiceServerImpl().getUser(counter.getAndIncrement());
        Slot s = w.take();
        w.put(s, service.createUser(user));
        return s;
    }

    @Benchmark
    public Slot getUser(Window w) throws Exception {
        long id = counter.getAndIncrement();
        Slot s = w.take();
        w.put(s, service.getUser(id));
        return s;
    }

    @Benchmark
    public Slot listUser(Window w) throws Exception {
        int pageNo = counter.getAndIncrement();
        Slot s = w.take();
        w.put(s, service.listUser(pageNo));
        return s;
    }
}
