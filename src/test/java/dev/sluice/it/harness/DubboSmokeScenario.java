package dev.sluice.it.harness;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.dubbo.common.utils.NetUtils;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * Child-JVM scenario (run by {@link NetnsDubboSmokeTest} through {@link IsolatedJvm}): a real Dubbo 3.3.6 provider
 * and a real Dubbo consumer in this JVM, talking over TCP to {@link Scenario#testAddress()}. Several threads make
 * calls alternating {@link EchoService#echo} and {@link EchoService#exchange}, checking every answer.
 *
 * <p>Args: {@code threads callsPerThread}. Results: {@code dubbo-start} (ms, port, dubboLocalHost),
 * {@code first-call} (ms), {@code calls} (count, errors, p50us, p99us, maxus, wallms, seenFrom),
 * {@code dubbo-stop} (ms).
 */
public final class DubboSmokeScenario {
    private DubboSmokeScenario() {}

    public static void main(String[] args) {
        Scenario.run(() -> {
            int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
            int callsPerThread = args.length > 1 ? Integer.parseInt(args[1]) : 50;
            DubboPeers.quietDefaults();
            String host = Scenario.testAddress();

            long t0 = System.nanoTime();
            int port = DubboPeers.freePort();
            ServiceConfig<EchoService> service = DubboPeers.service(EchoService.class, new EchoServiceImpl());
            ReferenceConfig<EchoService> reference = DubboPeers.reference(EchoService.class, host, port, 10_000);
            DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                    .application(DubboPeers.application("sluice-smoke"))
                    .registry(DubboPeers.noRegistry())
                    .protocol(DubboPeers.dubboProtocol(port))
                    .service(service)
                    .reference(reference)
                    .start();
            EchoService echo = reference.get();
            // The address Dubbo itself resolved as "local": 127.0.0.1 here means the slow path of §9.11.
            Scenario.ok("dubbo-start", "ms", millisSince(t0), "port", port, "network", Scenario.network(),
                    "host", host, "dubboLocalHost", NetUtils.getLocalHost());

            long t1 = System.nanoTime();
            String first = echo.echo("hello");
            if (!"hello".equals(first)) {
                throw new AssertionError("first echo returned " + first);
            }
            Scenario.ok("first-call", "ms", millisSince(t1));

            runCalls(echo, host, threads, callsPerThread);

            long t2 = System.nanoTime();
            bootstrap.stop();
            Scenario.ok("dubbo-stop", "ms", millisSince(t2));
        });
    }

    private static void runCalls(EchoService echo, String host, int threads, int callsPerThread) throws Exception {
        AtomicReference<String> seenFrom = new AtomicReference<>();
        CallLoad.Result load = CallLoad.run(threads, callsPerThread, index -> oneCall(echo, index, seenFrom));
        String seen = seenFrom.get();
        if (load.errors() > 0) {
            Scenario.fail("calls", load.failureSummary());
        } else if (!host.equals(seen)) {
            Scenario.fail("calls", "provider saw the consumer as " + seen + ", expected " + host);
        } else {
            Scenario.ok("calls", "count", load.count(), "errors", load.errors(), "threads", threads,
                    "p50us", load.p50Micros(),
                    "p99us", load.p99Micros(),
                    "maxus", load.maxMicros(),
                    "wallms", load.wallMillis(),
                    "seenFrom", seen);
        }
    }

    /** One call of the mix (echo or exchange by {@code index}); null when the answer is right, else what was wrong. */
    public static String oneCall(EchoService echo, int index, AtomicReference<String> seenFrom) {
        if (index % 2 == 0) {
            String text = "echo-" + index + "-\u00e9\u4e2d";
            String answer = echo.echo(text);
            return text.equals(answer) ? null : "echo returned " + answer;
        }
        List<Integer> numbers = List.of(index, 1, 2, 3);
        EchoReply reply = echo.exchange(new EchoRequest(index, "abc" + index, numbers));
        String expectedReversed = new StringBuilder("abc" + index).reverse().toString();
        if (reply == null || reply.getSeq() != index || !expectedReversed.equals(reply.getReversed())
                || reply.getSum() != index + 6L) {
            return "exchange returned seq=" + (reply == null ? "null" : reply.getSeq() + " reversed="
                    + reply.getReversed() + " sum=" + reply.getSum());
        }
        String previous = seenFrom.getAndSet(reply.getSeenFrom());
        if (previous != null && !previous.equals(reply.getSeenFrom())) {
            return "provider saw callers " + previous + " and " + reply.getSeenFrom();
        }
        return null;
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
