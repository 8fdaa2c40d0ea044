package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.rpc.micrometer.MicrometerInterceptor;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.micrometer.MicrometerTransportObserver;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Call and transport meters asserted from real calls between a SluiceClient and a SluiceServer. */
@Timeout(60)
class MicrometerMetersTest {
    private static final int THREADS = 4;
    private static final int PER_THREAD = 250;

    private static double counter(MeterRegistry r, String name, String transport) {
        return r.get(name).tag("transport", transport).counter().count();
    }

    @Test
    void callTimersAndTransportMetersCountTheCallsMade() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        int total = THREADS * PER_THREAD;
        // tag::transport-meters[]
        TransportOptions serverOptions = TransportOptions.builder()
                .observer(MicrometerTransportObserver.create(registry, "server", 0.5, 0.99)).build();
        TransportOptions clientOptions = TransportOptions.builder()
                .observer(MicrometerTransportObserver.create(registry, "client", 0.5, 0.99)).build();
        // end::transport-meters[]
        try (SluiceServer server = SluiceServer.builder().port(0).options(serverOptions)
                .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl())
                .intercept(MicrometerInterceptor.create(registry)).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port()).options(clientOptions)
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true)
                     .intercept(MicrometerInterceptor.create(registry, 0.5, 0.99)).build()) {
            InterceptorTest.Greeter g = client.proxy(InterceptorTest.Greeter.class);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < PER_THREAD; i++) {
                            assertEquals("hello " + i, g.greet(String.valueOf(i)));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdown();
            }
            String service = InterceptorTest.Greeter.class.getName();
            Timer clientCalls = registry.get("sluice.calls").tags("side", "client", "service", service,
                    "method", "greet", "outcome", "success").timer();
            assertEquals(total, clientCalls.count());
            assertTrue(clientCalls.totalTime(TimeUnit.NANOSECONDS) > 0);
            assertEquals(total, registry.get("sluice.calls").tags("side", "server", "method", "greet").timer().count());
            assertEquals(0, registry.get("sluice.calls.in.flight").tags("side", "client").gauge().value());

            // Client side: every request went out in some write; the batches add up to the frames and bytes.
            assertEquals(total, counter(registry, "sluice.transport.frames.out", "client"));
            DistributionSummary perWrite = registry.get("sluice.transport.write.messages")
                    .tag("transport", "client").summary();
            assertEquals(total, perWrite.totalAmount(), "messages per write add up to the frames written");
            assertTrue(perWrite.count() >= 1 && perWrite.count() <= total);
            assertEquals(total, registry.get("sluice.transport.queue.wait").tag("transport", "client").timer()
                    .count(), "every request went through the queue and was timed");
            // The server read every request before it answered it; it answered each one.
            assertEquals(total, counter(registry, "sluice.transport.frames.in", "server"));
            assertEquals(counter(registry, "sluice.transport.bytes.out", "client"),
                    counter(registry, "sluice.transport.bytes.in", "server"));
            assertEquals(total, counter(registry, "sluice.transport.frames.out", "server"));
            assertEquals(total, counter(registry, "sluice.transport.frames.in", "client"));
            assertEquals(1, registry.get("sluice.transport.connections").tag("transport", "client").gauge().value());
            assertNotNull(registry.get("sluice.transport.pending.bytes").tag("transport", "server").gauge());
        }
    }

    @Test
    void timeoutsAreCountedWithWhetherTheRequestWasSent() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch release = new CountDownLatch(1);
        SluiceInterceptor hold = new SluiceInterceptor() {
            @Override
            public void onCall(Invocation inv) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl()).intercept(hold).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofMillis(200)).failIfNotConnected(true)
                     .intercept(MicrometerInterceptor.create(registry)).build()) {
            InterceptorTest.Greeter g = client.proxy(InterceptorTest.Greeter.class);
            assertThrows(RpcTimeoutException.class, () -> g.greet("x"));
            CompletableFuture<String> late = g.greetAsync("y");
            assertThrows(java.util.concurrent.ExecutionException.class, () -> late.get(10, TimeUnit.SECONDS));
            release.countDown();
            assertEquals(1, registry.get("sluice.calls.timeouts").tags("method", "greet", "sent", "sent").counter()
                    .count());
            assertEquals(1, registry.get("sluice.calls.timeouts").tags("method", "greetAsync", "sent", "sent")
                    .counter().count());
            assertEquals(2, registry.get("sluice.calls").tag("outcome", "timeout").timers().stream()
                    .mapToLong(Timer::count).sum());
        }
    }
}
