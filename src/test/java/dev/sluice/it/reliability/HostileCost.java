package dev.sluice.it.reliability;

import com.sun.management.OperatingSystemMXBean;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What one attack of {@link HostileAttacks} cost the server, measured in the server's own JVM: the CPU time of its
 * event-loop threads (found by name) and of the whole process less the attacker's own threads, the bytes the loop
 * threads allocated, heap retained after a full GC, direct memory held, and log lines written. Every figure is a
 * difference between two {@link Snapshot}s.
 *
 * <p>Log lines are counted on the logging backends themselves: slf4j-simple (which the tests and the Dubbo peers use)
 * writes each line to {@code System.err}, which {@link #countLogs()} replaces with a counting tee; hessian-lite and
 * other JUL users are counted by a {@link Handler} on JUL's root logger. JUL's own console handler is created before
 * the tee, so its lines are counted once, by the handler.
 *
 * <p>Threads: {@link Snapshot#take} runs on the attacking thread; the counters are thread-safe.
 */
final class HostileCost {
    private static final AtomicLong STDERR_LINES = new AtomicLong();
    private static final AtomicLong JUL_RECORDS = new AtomicLong();
    private static volatile boolean installed;

    private HostileCost() {
    }

    /** Installs the log counters once per JVM (idempotent). */
    static synchronized void countLogs() {
        if (installed) {
            return;
        }
        Logger root = Logger.getLogger("");
        root.getHandlers(); // JUL's console handler now holds the real System.err: its lines are not teed
        root.addHandler(new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (isLoggable(record)) {
                    JUL_RECORDS.incrementAndGet();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        PrintStream real = System.err;
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                if (b == '\n') {
                    STDERR_LINES.incrementAndGet();
                }
                real.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                for (int i = off; i < off + len; i++) {
                    if (b[i] == '\n') {
                        STDERR_LINES.incrementAndGet();
                    }
                }
                real.write(b, off, len);
            }

            @Override
            public void flush() {
                real.flush();
            }
        }, true));
        installed = true;
    }

    /** CPU, allocation, memory and log counters at one moment. */
    record Snapshot(long loopCpuNanos, long loopAllocated, long processCpuNanos, long heapUsed, long direct,
            long logLines) {
        /**
         * Now; {@code gc} forces full collections first so {@code heapUsed} is what is retained. The loop threads
         * are those whose name starts with {@code loopPrefix}.
         */
        static Snapshot take(String loopPrefix, boolean gc) {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            if (gc) {
                for (int i = 0; i < 3; i++) {
                    System.gc();
                }
            }
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long cpu = 0;
            long allocated = 0;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith(loopPrefix)) {
                    cpu += Math.max(0, threads.getThreadCpuTime(t.getId()));
                    allocated += Math.max(0, threads.getThreadAllocatedBytes(t.getId()));
                }
            }
            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            return new Snapshot(cpu, allocated, os.getProcessCpuTime(), memory.getHeapMemoryUsage().getUsed(),
                    Fixtures.directMemory(), STDERR_LINES.get() + JUL_RECORDS.get());
        }
    }
}
