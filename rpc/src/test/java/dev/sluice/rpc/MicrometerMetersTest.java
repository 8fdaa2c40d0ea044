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
            Timer clientCalls = registry.get("sluice.calls").tags("side", "client", "interface", service,
                    "method", "greet", "outcome", "success").timer();
            assertEquals(total, clientCalls.count());
            assertTrue(clientCalls.totalTime(TimeUnit.NANOSECONDS) > 0);
            assertEquals(total, registry.get("sluice.calls").tags("side", "server", "method", "greet").timer().count());
            assertEquals(0, registry.get("sluice.calls.in.flight").tags("side", "client").gauge().value());

            // Client side: every request went out in some write; the batches add up to the frames and bytes.
            assertEquals(total, counter(registry, "sluice.transport.frames.sent", "client"));
            DistributionSummary perWrite = registry.get("sluice.transport.write.messages")
                    .tag("transport", "client").summary();
            assertEquals(total, perWrite.totalAmount(), "messages per write add up to the frames written");
            assertTrue(perWrite.count() >= 1 && perWrite.count() <= total);
            assertEquals(total, registry.get("sluice.transport.queue.wait").tag("transport", "client").timer()
                    .count(), "every request went through the queue and was timed");
            // The server read every request before it answered it; it answered each one.
            assertEquals(total, counter(registry, "sluice.transport.frames.received", "server"));
            assertEquals(counter(registry, "sluice.transport.data.sent", "client"),
                    counter(registry, "sluice.transport.data.received", "server"));
            assertEquals(total, counter(registry, "sluice.transport.frames.sent", "server"));
            assertEquals(total, counter(registry, "sluice.transport.frames.received", "client"));
            assertEquals(1, registry.get("sluice.transport.connections").tag("transport", "client").gauge().value());
            assertNotNull(registry.get("sluice.transport.write.pending").tag("transport", "server").gauge());
        }
    }

    /**
     * Call meters carry the tags of Dubbo's own call meters: {@code interface}, {@code method}, {@code group},
     * {@code version}, {@code application.name} (each endpoint's {@code applicationName}), with {@code side} and
     * {@code outcome}; a service served in two versions is two sets of meters.
     */
    @Test
    void callMetersAreTaggedAsDubboTagsItsOwn() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (SluiceServer server = SluiceServer.builder().port(0).applicationName("greeter-server")
                .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl(), "1.0.0", "blue")
                .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl(), "2.0.0", "blue")
                .intercept(MicrometerInterceptor.create(registry)).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .applicationName("greeter-client").timeout(Duration.ofSeconds(10)).failIfNotConnected(true)
                     .intercept(MicrometerInterceptor.create(registry)).build()) {
            InterceptorTest.Greeter one = client.reference(InterceptorTest.Greeter.class).version("1.0.0")
                    .group("blue").proxy();
            InterceptorTest.Greeter two = client.reference(InterceptorTest.Greeter.class).version("2.0.0")
                    .group("blue").proxy();
            for (int i = 0; i < 3; i++) {
                assertEquals("hello a", one.greet("a"));
            }
            assertEquals("hello b", two.greet("b"));
            String service = InterceptorTest.Greeter.class.getName();
            for (String[] side : new String[][] {{"client", "greeter-client"}, {"server", "greeter-server"}}) {
                Timer v1 = registry.get("sluice.calls").tags("side", side[0], "interface", service, "method", "greet",
                        "group", "blue", "version", "1.0.0", "application.name", side[1], "outcome", "success").timer();
                assertEquals(3, v1.count(), side[0]);
                Timer v2 = registry.get("sluice.calls").tags("side", side[0], "interface", service, "method", "greet",
                        "group", "blue", "version", "2.0.0", "application.name", side[1], "outcome", "success").timer();
                assertEquals(1, v2.count(), side[0]);
                assertEquals(0, registry.get("sluice.calls.in.flight").tags("side", side[0], "interface", service,
                        "group", "blue", "version", "1.0.0", "application.name", side[1]).gauge().value());
            }
            for (io.micrometer.core.instrument.Meter m : registry.getMeters()) {
                assertEquals(null, m.getId().getTag("service"), "no tag key of Sluice's own: " + m.getId());
            }
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
