package dev.sluice.rpc.micrometer;

import dev.sluice.rpc.Invocation;
import dev.sluice.rpc.Outcome;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceInterceptor;
import dev.sluice.transport.SendState;
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
import java.util.concurrent.atomic.AtomicReferenceArray;

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
    private static final Outcome.Kind[] KINDS = Outcome.Kind.values();
    private static final SendState[] SEND_STATES = SendState.values();

    private final MeterRegistry registry;
    private final double[] percentiles;
    /** Meters of client-side calls, then of server-side calls (by {@link Invocation.Side} ordinal). */
    private final SideMeters[] sides = {new SideMeters("client"), new SideMeters("server")};

    private MicrometerInterceptor(MeterRegistry registry, double[] percentiles) {
        this.registry = registry;
        this.percentiles = percentiles;
    }

    /** Meters in {@code registry}, the call timers publishing {@code percentiles} (e.g. 0.5, 0.99; none if empty). */
    public static MicrometerInterceptor create(MeterRegistry registry, double... percentiles) {
        return new MicrometerInterceptor(Objects.requireNonNull(registry, "registry"),
                percentiles.length == 0 ? null : percentiles.clone());
    }

    @Override
    public void onCall(Invocation inv) {
        sides[inv.side().ordinal()].inFlight(inv.service()).incrementAndGet();
    }

    @Override
    public void onComplete(Invocation inv, Outcome outcome) {
        SideMeters side = sides[inv.side().ordinal()];
        side.inFlight(inv.service()).decrementAndGet();
        MethodMeters method = side.method(inv.service(), inv.method());
        method.timer(outcome.kind()).record(outcome.durationNanos(), TimeUnit.NANOSECONDS);
        if (outcome.exception() instanceof RpcTimeoutException) {
            method.timeouts(((RpcTimeoutException) outcome.exception()).sendState()).increment();
        }
    }

    /**
     * The meters of one side, looked up by service and method name without building a key per call (the meters
     * are created once per tag combination; a racing creation registers the same meter twice, which Micrometer
     * answers with the one already registered).
     */
    private final class SideMeters {
        final String tag;
        final ConcurrentHashMap<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, ConcurrentHashMap<String, MethodMeters>> methods = new ConcurrentHashMap<>();

        SideMeters(String tag) {
            this.tag = tag;
        }

        AtomicInteger inFlight(String service) {
            AtomicInteger count = inFlight.get(service);
            return count != null ? count : inFlight.computeIfAbsent(service, k -> {
                AtomicInteger c = new AtomicInteger();
                Gauge.builder("sluice.calls.in.flight", c, AtomicInteger::get)
                        .tags("side", tag, "service", service).register(registry);
                return c;
            });
        }

        MethodMeters method(String service, String method) {
            ConcurrentHashMap<String, MethodMeters> byMethod = methods.get(service);
            if (byMethod == null) {
                byMethod = methods.computeIfAbsent(service, k -> new ConcurrentHashMap<>());
            }
            MethodMeters meters = byMethod.get(method);
            return meters != null ? meters : byMethod.computeIfAbsent(method, k -> new MethodMeters(tag, service, k));
        }
    }

    /** One method's timers by outcome and timeout counters by send state, created on first use. */
    private final class MethodMeters {
        final String side;
        final String service;
        final String method;
        final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(KINDS.length);
        final AtomicReferenceArray<Counter> timeouts = new AtomicReferenceArray<>(SEND_STATES.length);

        MethodMeters(String side, String service, String method) {
            this.side = side;
            this.service = service;
            this.method = method;
        }

        Timer timer(Outcome.Kind kind) {
            Timer timer = timers.get(kind.ordinal());
            if (timer == null) {
                timer = Timer.builder("sluice.calls")
                        .tags(Tags.of("side", side, "service", service, "method", method,
                                "outcome", kind.name().toLowerCase(Locale.ROOT)))
                        .publishPercentiles(percentiles).register(registry);
                timers.set(kind.ordinal(), timer);
            }
            return timer;
        }

        Counter timeouts(SendState state) {
            Counter counter = timeouts.get(state.ordinal());
            if (counter == null) {
                counter = Counter.builder("sluice.calls.timeouts")
                        .tags("side", side, "service", service, "method", method,
                                "sent", state.name().toLowerCase(Locale.ROOT))
                        .register(registry);
                timeouts.set(state.ordinal(), counter);
            }
            return counter;
        }
    }
}
