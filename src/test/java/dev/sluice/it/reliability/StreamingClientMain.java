package dev.sluice.it.reliability;

import dev.sluice.it.harness.CountedService;
import dev.sluice.it.harness.Scenario;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client JVM {@link FrozenProcessTest} freezes: streams {@link CountedService#async} calls of 64 KiB that are
 * answered with 64 KiB, {@value #WINDOW} at a time, with a small socket receive buffer, until the stop file appears;
 * then waits for every call it made and reports {@code RESULT name=client ok calls=… ok=… failed=…} (failures by
 * type), or {@code FAIL} when a call never completed.
 *
 * <p>Args: {@code nativeTransport port stopFile}. The main thread sends; completions run on the client's threads.
 */
public final class StreamingClientMain {
    static final int WINDOW = 512;
    static final int VALUE_BYTES = 64 * 1024;

    private StreamingClientMain() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            NativeTransport kind = NativeTransport.valueOf(args[0]);
            int port = Integer.parseInt(args[1]);
            Path stopFile = Paths.get(args[2]);
            TransportOptions options = TransportOptions.builder().nativeTransport(kind)
                    .socketBuffers(0, 64 * 1024).pendingBytesCap(64L * 1024 * 1024).build();
            Semaphore window = new Semaphore(WINDOW);
            AtomicLong calls = new AtomicLong();
            LongAdder ok = new LongAdder();
            Map<String, LongAdder> failed = new ConcurrentHashMap<>();
            String value = "v".repeat(VALUE_BYTES);
            try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", port).options(options)
                    .timeout(Duration.ofSeconds(20)).failIfNotConnected(true).build()) {
                CountedService s = client.proxy(CountedService.class);
                while (!Files.exists(stopFile)) {
                    if (!window.tryAcquire(20, TimeUnit.MILLISECONDS)) {
                        continue;
                    }
                    long id = calls.incrementAndGet();
                    try {
                        s.async(id, value).whenComplete((v, e) -> {
                            if (e == null) {
                                ok.increment();
                            } else {
                                failed.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder())
                                        .increment();
                            }
                            window.release();
                        });
                    } catch (RuntimeException e) { // refused before it was queued
                        failed.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder()).increment();
                        window.release();
                    }
                }
                if (!window.tryAcquire(WINDOW, 60, TimeUnit.SECONDS)) {
                    Scenario.fail("client", "calls never completed: " + (WINDOW - window.availablePermits()));
                    return;
                }
            }
            Map<String, Long> byType = new TreeMap<>();
            failed.forEach((k, v) -> byType.put(k, v.sum()));
            long failures = byType.values().stream().mapToLong(Long::longValue).sum();
            Scenario.ok("client", "calls", calls.get(), "ok", ok.sum(), "failed", failures, "types", byType);
        });
    }
}
