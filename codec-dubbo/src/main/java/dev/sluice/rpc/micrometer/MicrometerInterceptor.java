package dev.sluice.rpc.micrometer;

import dev.sluice.rpc.Invocation;
import dev.sluice.rpc.Outcome;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceInterceptor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Per-method call meters, as an interceptor for {@code SluiceClient.Builder.intercept} or
 * {@code SluiceServer.Builder.intercept}:
 *
 * <ul>
 *   <li>{@code sluice.calls} — timer, tags {@code side} (client/server), {@code service}, {@code method},
 *       {@code outcome} ({@code success}, {@code application_exception}, {@code timeout}, {@code failure});
 *       percentiles as given to {@link #create}.</li>
 *   <li>{@code sluice.calls.in.flight} — gauge, tags {@code side}, {@code service}: calls started, not ended.</li>
 *   <li>{@code sluice.calls.timeouts} — counter, tags {@code side}, {@code service}, {@code method}, {@code sent}
 *       ({@code not_sent}: withdrawn, the provider never saw it; {@code sent}; {@code unknown}).</li>
 * </ul>
 *
 * <p>Tag values come from the services and methods a proxy or a server registered (the server intercepts only
 * calls that resolved to a registered method), so cardinality stays bounded. Threads: see
 * {@link SluiceInterceptor}; thread-safe.
 */
public final class MicrometerInterceptor implements SluiceInterceptor {
    private final MeterRegistry registry;
    private final double[] percentiles;
    private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> timeouts = new ConcurrentHashMap<>();

    private MicrometerInterceptor(MeterRegistry registry, double[] percentiles) {
        this.registry = registry;
        this.percentiles = percentiles;
    }

    /** Meters in {@code registry}, the call timers publishing {@code percentiles} (e.g. 0.5, 0.99; none if empty). */
    public static MicrometerInterceptor create(MeterRegistry registry, double... percentiles) {
        return new MicrometerInterceptor(Objects.requireNonNull(registry, "registry"),
                percentiles.length == 0 ? null : percentiles.clone());
    }

    private static String side(Invocation inv) {
        return inv.side() == Invocation.Side.CLIENT ? "client" : "server";
    }

    private AtomicInteger inFlight(Invocation inv) {
        String side = side(inv);
        return inFlight.computeIfAbsent(side + '\0' + inv.service(), k -> {
            AtomicInteger count = new AtomicInteger();
            Gauge.builder("sluice.calls.in.flight", count, AtomicInteger::get)
                    .tags("side", side, "service", inv.service()).register(registry);
            return count;
        });
    }

    @Override
    public void onCall(Invocation inv) {
        inFlight(inv).incrementAndGet();
    }

    @Override
    public void onComplete(Invocation inv, Outcome outcome) {
        inFlight(inv).decrementAndGet();
        String side = side(inv);
        String outcomeTag = outcome.kind().name().toLowerCase(Locale.ROOT);
        String key = side + '\0' + inv.service() + '\0' + inv.method() + '\0' + outcomeTag;
        timers.computeIfAbsent(key, k -> Timer.builder("sluice.calls")
                .tags(Tags.of("side", side, "service", inv.service(), "method", inv.method(), "outcome", outcomeTag))
                .publishPercentiles(percentiles).register(registry))
                .record(outcome.durationNanos(), TimeUnit.NANOSECONDS);
        if (outcome.exception() instanceof RpcTimeoutException) {
            String sent = ((RpcTimeoutException) outcome.exception()).sendState().name().toLowerCase(Locale.ROOT);
            timeouts.computeIfAbsent(side + '\0' + inv.service() + '\0' + inv.method() + '\0' + sent,
                    k -> Counter.builder("sluice.calls.timeouts")
                            .tags("side", side, "service", inv.service(), "method", inv.method(), "sent", sent)
                            .register(registry)).increment();
        }
    }
}
