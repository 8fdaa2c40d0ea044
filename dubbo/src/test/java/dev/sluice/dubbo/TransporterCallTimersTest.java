package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.cumulative.CumulativeTimer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.TimeoutException;
import org.apache.dubbo.remoting.exchange.ExchangeChannel;
import org.apache.dubbo.remoting.exchange.ExchangeClient;
import org.apache.dubbo.remoting.exchange.ExchangeServer;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.remoting.exchange.support.header.HeaderExchangeClient;
import org.apache.dubbo.remoting.exchange.support.header.HeaderExchangeHandler;
import org.apache.dubbo.remoting.exchange.support.header.HeaderExchangeServer;
import org.apache.dubbo.remoting.transport.DecodeHandler;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.protocol.dubbo.DubboProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The per-call timers ({@code sluice.calls}) of the Dubbo {@code sluice} Transporter with {@code sluice.metrics}, from
 * real traffic: Dubbo services exported and referred on the transporter (per-method counts and outcomes on both
 * sides), and Dubbo's exchange layer for a call that times out at the consumer (recorded by the sweep) and for a
 * connection closed with calls waiting (both sides record them and keep nothing). Read from an application registry
 * added to the global one, as Spring Boot's is; waits are on the registry's records, never on the clock.
 */
@Timeout(60)
class TransporterCallTimersTest {
    private static final int CALLS = 40;

    private RecordingRegistry registry;

    /** The service exported in the first test; its name is unique to this class, so counts are exact. */
    public interface Calculator {
        int add(int a, int b);

        String echo(String s);

        String fail(String why);
    }

    /** The provider's implementation. */
    public static final class CalculatorImpl implements Calculator {
        @Override
        public int add(int a, int b) {
            return a + b;
        }

        @Override
        public String echo(String s) {
            return s;
        }

        @Override
        public String fail(String why) {
            throw new IllegalStateException(why);
        }
    }

    /** An application's registry that also reports each {@code sluice.calls} record, so tests can wait for one. */
    static final class RecordingRegistry extends SimpleMeterRegistry {
        final BlockingQueue<Meter.Id> recorded = new LinkedBlockingQueue<>();

        @Override
        protected Timer newTimer(Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
            return new CumulativeTimer(id, clock, config, pauseDetector, getBaseTimeUnit(), false) {
                @Override
                protected void recordNonNegative(long amount, TimeUnit unit) {
                    super.recordNonNegative(amount, unit);
                    recorded.add(id);
                }
            };
        }

        long count(String side, String service, String method, String outcome) {
            Timer t = find("sluice.calls").tags("side", side, "interface", service, "method", method,
                    "outcome", outcome).timer();
            return t == null ? 0 : t.count();
        }

        /** Waits (bounded) until the timer with these tags has counted {@code expected}. */
        void awaitCount(long expected, String side, String service, String method, String outcome)
                throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (count(side, service, method, outcome) < expected) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || recorded.poll(left, TimeUnit.NANOSECONDS) == null) {
                    break;
                }
            }
            assertEquals(expected, count(side, service, method, outcome),
                    side + " " + service + "." + method + " " + outcome);
        }
    }

    @BeforeEach
    void addRegistry() {
        registry = new RecordingRegistry();
        Metrics.addRegistry(registry);
    }

    @AfterEach
    void removeRegistry() {
        Metrics.removeRegistry(registry);
        registry.close();
    }

    private static int freePort() throws Exception {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    @Test
    void perMethodTimersOnBothSidesCountTheCallsMadeWithTheirOutcome() throws Exception {
        int port = freePort();
        String name = "calls-" + UUID.randomUUID();
        FrameworkModel providerModel = new FrameworkModel();
        FrameworkModel consumerModel = new FrameworkModel();
        try {
            ProtocolConfig protocol = new ProtocolConfig("dubbo", port);
            protocol.setSerialization("fastjson2");
            protocol.setServer("sluice");
            protocol.setParameters(Map.of("sluice.metrics", name + "-provider"));
            ServiceConfig<Calculator> service = new ServiceConfig<>();
            service.setInterface(Calculator.class);
            service.setRef(new CalculatorImpl());
            service.setGroup("blue");
            service.setVersion("1.2.0");
            DubboBootstrap.newInstance(providerModel).application(application("timers-provider"))
                    .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE)).protocol(protocol).service(service)
                    .start();

            ReferenceConfig<Calculator> reference = new ReferenceConfig<>();
            reference.setInterface(Calculator.class);
            reference.setUrl("dubbo://127.0.0.1:" + port + "?serialization=fastjson2");
            reference.setClient("sluice");
            reference.setGroup("blue");
            reference.setVersion("1.2.0");
            reference.setCheck(false);
            reference.setScope("remote");
            reference.setTimeout(10_000);
            reference.setRetries(0);
            reference.setParameters(Map.of("sluice.metrics", name + "-consumer"));
            DubboBootstrap.newInstance(consumerModel).application(application("timers-consumer"))
                    .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE)).reference(reference).start();
            Calculator calculator = reference.get();

            for (int i = 0; i < CALLS; i++) {
                assertEquals(i + 1, calculator.add(i, 1));
                assertEquals("e" + i, calculator.echo("e" + i));
            }
            // The service's own exception, delivered as such (Dubbo's ExceptionFilter passes JDK exceptions on).
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> calculator.fail("nope"));
            assertEquals("nope", thrown.getMessage());
        } finally {
            DubboProtocol.getDubboProtocol(consumerModel).destroy();
            consumerModel.destroy();
            DubboProtocol.getDubboProtocol(providerModel).destroy();
            providerModel.destroy();
        }
        String svc = Calculator.class.getName();
        for (String side : new String[] {"client", "server"}) {
            registry.awaitCount(CALLS, side, svc, "add", "success");
            registry.awaitCount(CALLS, side, svc, "echo", "success");
            registry.awaitCount(1, side, svc, "fail", "application_exception");
            assertEquals(0, registry.count(side, svc, "add", "failure"));
            assertEquals(0, registry.count(side, svc, "fail", "success"));
        }
        // Dubbo's own tag keys, from the service's metadata and the application (MetricsConstants.TAG_*_KEY).
        for (String[] side : new String[][] {{"client", "timers-consumer"}, {"server", "timers-provider"}}) {
            Timer add = registry.get("sluice.calls").tags("side", side[0], "interface", svc, "method", "add",
                    "group", "blue", "version", "1.2.0", "application.name", side[1], "outcome", "success").timer();
            assertEquals(CALLS, add.count(), side[0]);
            assertEquals(null, add.getId().getTag("service"), "no tag key of Sluice's own");
        }
    }

    private static ApplicationConfig application(String name) {
        ApplicationConfig app = new ApplicationConfig(name);
        app.setQosEnable(false);
        app.setRegisterMode("interface");
        app.setEnableFileCache(false);
        return app;
    }

    /** A provider on Dubbo's exchange layer whose answers wait for {@code release}; {@code arrived} counts requests. */
    private static ExchangeServer heldServer(String url, CountDownLatch arrived, CountDownLatch release)
            throws RemotingException {
        return Exchangers.bind(URL.valueOf(url), new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) {
            @Override
            public CompletableFuture<Object> reply(ExchangeChannel channel, Object request) {
                arrived.countDown();
                CompletableFuture<Object> answer = new CompletableFuture<>();
                CompletableFuture.runAsync(() -> {
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    answer.complete(request);
                });
                return answer;
            }
        });
    }

    /** Dubbo's exchange client on the sluice Transporter, as {@code HeaderExchanger.connect} builds it. */
    private static SluiceDubboClient transportClient(String url) throws RemotingException {
        return new SluiceDubboClient(URL.valueOf(url), new DecodeHandler(new HeaderExchangeHandler(
                new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) { })));
    }

    @Test
    void aCallThatTimesOutAtTheConsumerIsRecordedByTheSweepAndLeavesNothing() throws Exception {
        String base = "dubbo://127.0.0.1:" + freePort() + "/timers?codec=exchange&serialization=fastjson2&heartbeat=0"
                + "&sluice.metrics=timeout-" + UUID.randomUUID();
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExchangeServer server = heldServer(base + "&server=sluice", arrived, release);
        try {
            SluiceDubboClient raw = transportClient(base + "&client=sluice&timeout=300");
            ExchangeClient client = new HeaderExchangeClient(raw, true);
            try {
                long timeoutsBefore = registry.count("client", "unknown", "unknown", "timeout");
                CompletableFuture<Object> answer = client.request("slow", 300);
                assertTrue(arrived.await(10, TimeUnit.SECONDS), "the provider got the request");
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> answer.get(10, TimeUnit.SECONDS));
                assertInstanceOf(TimeoutException.class, e.getCause(), "Dubbo's own timeout at the consumer");
                registry.awaitCount(timeoutsBefore + 1, "client", "unknown", "unknown", "timeout");
                CallClock calls = raw.latestChannel().calls();
                assertNotNull(calls);
                assertEquals(0, calls.pendingCount(), "the sweep removed the entry");
                // The late answer finds nothing to time on the client; the provider times its own call.
                long serverBefore = registry.count("server", "unknown", "unknown", "success");
                release.countDown();
                registry.awaitCount(serverBefore + 1, "server", "unknown", "unknown", "success");
                assertEquals(timeoutsBefore + 1, registry.count("client", "unknown", "unknown", "timeout"));
            } finally {
                client.close();
            }
        } finally {
            release.countDown();
            server.close();
        }
    }

    @Test
    void aClosedConnectionRecordsItsWaitingCallsAsFailuresAndKeepsNothing() throws Exception {
        String base = "dubbo://127.0.0.1:" + freePort() + "/timers?codec=exchange&serialization=fastjson2&heartbeat=0"
                + "&sluice.metrics=close-" + UUID.randomUUID();
        int waiting = 3;
        CountDownLatch arrived = new CountDownLatch(waiting);
        CountDownLatch release = new CountDownLatch(1);
        ExchangeServer server = heldServer(base + "&server=sluice", arrived, release);
        try {
            SluiceDubboClient raw = transportClient(base + "&client=sluice&timeout=30000");
            ExchangeClient client = new HeaderExchangeClient(raw, true);
            try {
                long clientBefore = registry.count("client", "unknown", "unknown", "failure");
                long serverBefore = registry.count("server", "unknown", "unknown", "failure");
                List<CompletableFuture<Object>> answers = new ArrayList<>();
                for (int i = 0; i < waiting; i++) {
                    answers.add(client.request("held-" + i, 30_000));
                }
                assertTrue(arrived.await(10, TimeUnit.SECONDS), "the provider got the requests");
                CallClock clientCalls = raw.latestChannel().calls();
                SluiceDubboServer provider = (SluiceDubboServer) ((HeaderExchangeServer) server).getServer();
                List<CallClock> serverCalls = new ArrayList<>();
                provider.getChannels().forEach(c -> serverCalls.add(((SluiceChannel) c).calls()));
                assertEquals(1, serverCalls.size());
                assertEquals(waiting, clientCalls.pendingCount());
                assertEquals(waiting, serverCalls.get(0).pendingCount());

                raw.latestChannel().close(); // the connection goes; Dubbo fails the calls waiting on it
                for (CompletableFuture<Object> answer : answers) {
                    assertThrows(ExecutionException.class, () -> answer.get(10, TimeUnit.SECONDS));
                }
                registry.awaitCount(clientBefore + waiting, "client", "unknown", "unknown", "failure");
                registry.awaitCount(serverBefore + waiting, "server", "unknown", "unknown", "failure");
                assertEquals(0, clientCalls.pendingCount());
                assertEquals(0, serverCalls.get(0).pendingCount());
            } finally {
                client.close();
            }
        } finally {
            release.countDown();
            server.close();
        }
    }

    @Test
    void withoutTheParameterNoClockIsKept() {
        URL url = URL.valueOf("dubbo://127.0.0.1:1/x");
        assertEquals(null, DubboUrlOptions.callMeters(url, true));
        assertEquals(null, DubboUrlOptions.callMeters(url, false));
        assertEquals(null, DubboUrlOptions.callMeters(url.addParameter("sluice.metrics", " "), true));
    }
}
