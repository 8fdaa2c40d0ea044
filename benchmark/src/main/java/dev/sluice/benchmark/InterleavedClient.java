package dev.sluice.benchmark;

import dev.sluice.benchmark.latency.CallLatency;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The client JVM of an interleaved run ({@link Interleaved}): connects one {@link UserServiceBenchmark} to its
 * target's server, starts its calling threads once (as many as the run's highest thread count), and then measures one
 * slot at a time when the parent says so, with as many of them as the slot asks, so the parent can take turns between
 * the targets' client JVMs, a few seconds each, and every target sees the same stretch of the machine's time. One
 * client JVM serves every thread count of the run: what its JIT compiled for one load serves the next.
 *
 * <p>Protocol, one line each way on this JVM's standard input and output (everything else it prints goes to
 * {@code client.log}): it says {@code ready} once connected; {@code run METHOD THREADS SETTLE_MS WINDOW_MS} calls
 * METHOD from THREADS threads, first for SETTLE_MS unmeasured, then for WINDOW_MS measured, and answers
 * {@code ok CALLS NANOS BYTES P50_NS P99_NS P999_NS} (calls completed in the window, its length, the bytes the whole
 * JVM allocated in it, the calls' percentiles) or {@code error MESSAGE} if a call failed; {@code quit} closes the
 * client and exits.
 *
 * <p>Threads: {@link #main} reads commands and times the slots; the calling threads ({@code bench-caller-N}) call the
 * benchmark method while a slot runs and otherwise wait for the next slot; a slot's calls are counted by the caller
 * that finished them.
 */
final class InterleavedClient {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** What the calling threads are doing. */
    private enum Phase { SETTLE, MEASURE, STOP }

    private final int threads;
    private volatile Phase phase = Phase.STOP;
    /** Guards the slot's number, call, thread count and latch: a caller takes them together. */
    private final Object slots = new Object();
    private long slotNumber;
    private Supplier<Object> call;
    private CountDownLatch finished;
    private int callers;
    private final AtomicLong measuredCalls = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    InterleavedClient(int threads) {
        this.threads = threads;
    }

    /** {@code TARGET MAX_THREADS HOST PORT TIMEOUT_MS LOG}. */
    public static void main(String[] args) throws Exception {
        PrintStream control = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream log = new PrintStream(new FileOutputStream(Path.of(args[5]).toFile(), true), true,
                StandardCharsets.UTF_8);
        System.setOut(log); // Dubbo's logs must not reach the parent's control channel
        System.setErr(log);
        UserServiceBenchmark bench = new UserServiceBenchmark();
        bench.target = args[0];
        bench.host = args[2];
        bench.port = Integer.parseInt(args[3]);
        bench.timeoutMs = Integer.parseInt(args[4]);
        int status = 0;
        try {
            bench.connect();
            InterleavedClient client = new InterleavedClient(Integer.parseInt(args[1]));
            client.startCallers();
            control.println("ready");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                String[] w = line.split(" ");
                try {
                    control.println(client.slot(method(bench, w[1]), Integer.parseInt(w[2]), Long.parseLong(w[3]),
                            Long.parseLong(w[4])));
                } catch (RuntimeException e) {
                    control.println("error " + Runner.rootMessage(e).replace('\n', ' '));
                }
            }
        } catch (Exception e) {
            e.printStackTrace(log);
            control.println("error " + Runner.rootMessage(e).replace('\n', ' '));
            status = 1;
        } finally {
            bench.close();
            log.flush();
        }
        System.exit(status); // Dubbo leaves non-daemon threads behind
    }

    static Supplier<Object> method(UserServiceBenchmark bench, String name) {
        return switch (name) {
            case "existUser" -> bench::existUser;
            case "createUser" -> bench::createUser;
            case "getUser" -> bench::getUser;
            case "listUser" -> bench::listUser;
            default -> throw new IllegalArgumentException("no benchmark method " + name);
        };
    }

    void startCallers() {
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = new Thread(() -> callLoop(index), "bench-caller-" + i);
            t.setDaemon(true);
            t.start();
        }
    }

    private void callLoop(int index) {
        long done = 0; // the last slot this caller ran: one that starts late still runs the current one
        while (true) {
            Supplier<Object> c;
            CountDownLatch end;
            boolean mineToRun;
            synchronized (slots) {
                while (slotNumber == done) {
                    try {
                        slots.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                done = slotNumber;
                c = call;
                end = finished;
                mineToRun = index < callers;
            }
            long mine = 0;
            try {
                while (mineToRun && phase != Phase.STOP) {
                    c.get();
                    if (phase == Phase.MEASURE) {
                        mine++;
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                phase = Phase.STOP;
            }
            measuredCalls.addAndGet(mine);
            end.countDown();
        }
    }

    /** One slot: settle, then measure; the answer line. Blocks the main thread for its length. */
    String slot(Supplier<Object> method, int threadCount, long settleMillis, long windowMillis)
            throws InterruptedException {
        if (threadCount < 1 || threadCount > threads) {
            throw new IllegalArgumentException("a slot runs 1 to " + threads + " threads, not " + threadCount);
        }
        measuredCalls.set(0);
        failure.set(null);
        CountDownLatch end = new CountDownLatch(threads);
        synchronized (slots) {
            call = method;
            callers = threadCount;
            finished = end;
            phase = Phase.SETTLE;
            slotNumber++;
            slots.notifyAll();
        }
        Thread.sleep(settleMillis); // the harness's own pacing (not a test): the unmeasured part of the slot
        CallLatency.reset();
        long bytes0 = allocatedBytes();
        long t0 = System.nanoTime();
        if (phase == Phase.SETTLE) {
            phase = Phase.MEASURE;
        }
        long deadline = t0 + TimeUnit.MILLISECONDS.toNanos(windowMillis);
        while (phase != Phase.STOP && System.nanoTime() < deadline) {
            Thread.sleep(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
        }
        phase = Phase.STOP;
        long nanos = System.nanoTime() - t0;
        long bytes = allocatedBytes() - bytes0;
        if (!end.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("calls still running 60 s after the slot ended");
        }
        Throwable f = failure.get();
        if (f != null) {
            throw new IllegalStateException(method + " failed: " + f, f);
        }
        CallLatency.Snapshot s = CallLatency.snapshot();
        return String.format(Locale.ROOT, "ok %d %d %d %.0f %.0f %.0f", measuredCalls.get(), nanos, bytes,
                s.percentileNanos(50), s.percentileNanos(99), s.percentileNanos(99.9));
    }

    /** Bytes allocated so far by every live thread of this JVM (what JMH's gc profiler counts). */
    private static long allocatedBytes() {
        long sum = 0;
        for (long b : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            sum += Math.max(0, b);
        }
        return sum;
    }
}
