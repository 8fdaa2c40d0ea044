package dev.sluice.it.reliability;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.EchoService;
import dev.sluice.it.harness.EchoServiceImpl;
import dev.sluice.it.harness.Scenario;
import dev.sluice.transport.netty.PausableProxy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.config.ConsumerConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * Child-JVM scenario (run by {@link DubboStallRoutingTest}): a real Dubbo 3.3.6 provider on the {@code sluice}
 * Transporter, reached by a real Dubbo consumer at two addresses, directly and through a {@link PausableProxy}. The
 * consumer sets {@code sluice.stall-timeout} (argument 0; {@code -} for none) in its <em>consumer config's</em>
 * parameters, not on the reference; argument 1 is the most calls to make (default {@value #MAX_CALLS}). Then the proxy
 * stops answering, and the consumer makes calls one after the
 * other (round robin, failover with one retry, timeout 2 s) until twenty in a row have taken less than 500 ms, or
 * 30 calls have been made.
 *
 * <p>Results: {@code routing} (slow: calls over 500 ms; calls; fastRun: the longest run of fast calls; heartbeats
 * the proxy saw).
 */
public final class DubboStallRoutingScenario {
    static final int TIMEOUT_MS = 2_000;
    static final int FAST_RUN = 20;
    static final int MAX_CALLS = 30;

    private DubboStallRoutingScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            String stall = args.length > 0 ? args[0] : "-";
            int maxCalls = args.length > 1 ? Integer.parseInt(args[1]) : MAX_CALLS;
            DubboPeers.quietDefaults();
            String host = Scenario.testAddress();
            int port = DubboPeers.freePort();
            ProtocolConfig protocol = DubboPeers.dubboProtocol(port);
            protocol.setServer("sluice");
            ServiceConfig<EchoService> service = DubboPeers.service(EchoService.class, new EchoServiceImpl());
            try (PausableProxy proxy = new PausableProxy(new InetSocketAddress(host, port))) {
                // tag::consumer-stall-timeout[]
                ConsumerConfig consumer = new ConsumerConfig();
                consumer.setClient("sluice");
                if (!stall.equals("-")) {
                    consumer.setParameters(Map.of("sluice.stall-timeout", stall));
                }
                // end::consumer-stall-timeout[]
                ReferenceConfig<EchoService> reference = DubboPeers.reference(EchoService.class, host, port,
                        TIMEOUT_MS);
                reference.setClient(null); // from the consumer config
                reference.setUrl(DubboPeers.consumerUrl(host, port) + ";" + DubboPeers.consumerUrl(host, proxy.port()));
                reference.setCluster("failover");
                reference.setRetries(1);
                reference.setLoadbalance("roundrobin");
                DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                        .application(DubboPeers.application("sluice-stall-routing"))
                        .registry(DubboPeers.noRegistry())
                        .protocol(protocol)
                        .service(service)
                        .consumer(consumer)
                        .reference(reference)
                        .start();
                EchoService echo = reference.get();
                for (int i = 0; i < 10; i++) { // both addresses connected and warm
                    check(echo, "warm-" + i);
                }
                proxy.pause();
                int slow = 0;
                int calls = 0;
                int run = 0;
                int bestRun = 0;
                List<Long> slowMillis = new ArrayList<>();
                while (run < FAST_RUN && calls < maxCalls) {
                    long start = System.nanoTime();
                    check(echo, "call-" + calls);
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    calls++;
                    if (millis > 500) {
                        slow++;
                        slowMillis.add(millis);
                        run = 0;
                    } else {
                        bestRun = Math.max(bestRun, ++run);
                    }
                }
                int heartbeats = proxy.heartbeatsFromClient();
                proxy.resume();
                Scenario.ok("routing", "slow", slow, "calls", calls, "fastRun", bestRun, "heartbeats", heartbeats,
                        "slowMillis", slowMillis.toString().replace(' ', '_'));
                bootstrap.stop();
            }
        });
    }

    private static void check(EchoService echo, String text) {
        String answer = echo.echo(text);
        if (!text.equals(answer)) {
            throw new AssertionError("echo(" + text + ") returned " + answer);
        }
    }
}
