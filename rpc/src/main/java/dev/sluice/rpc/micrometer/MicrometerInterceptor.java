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
 * {@code SluiceServer.Builder.intercept}, tagged as Apache Dubbo tags its own call meters ({@code interface},
 * {@code method}, {@code group}, {@code version}, {@code application.name}), so they join Dubbo's dashboards:
 *
 * <ul>
 *   <li>{@code sluice.calls} — timer, tags {@code side} (client/server), {@code interface}, {@code method},
 *       {@code group}, {@code version}, {@code application.name}, {@code outcome} ({@code success},
 *       {@code application_exception}, {@code timeout}, {@code failure}); percentiles as given to
 *       {@link #create}.</li>
 *   <li>{@code sluice.calls.in.flight} — gauge, tags {@code side}, {@code interface}, {@code group},
 *       {@code version}, {@code application.name}: calls started, not ended.</li>
 *   <li>{@code sluice.calls.timeouts} — counter, tags {@code side}, {@code interface}, {@code method},
 *       {@code group}, {@code version}, {@code application.name}, {@code sent} ({@code not_sent}: withdrawn, the
 *       provider never saw it; {@code sent}; {@code unknown}).</li>
 * </ul>
 *
 * <p>{@code application.name} is the endpoint's {@code applicationName} (builder option; {@code ""} when not set);
 * {@code group} and {@code version} are {@code ""} when the service has none (Dubbo's default version
 * {@code 0.0.0} and the wildcard {@code *} count as none). Tag values come from the services and methods a proxy or
 * a server registered (the server intercepts only calls that resolved to a registered service, version and group),
 * so cardinality stays bounded. Threads: see {@link SluiceInterceptor}; thread-safe.
 */
public final class MicrometerInterceptor implements SluiceInterceptor {
    private static final Outcome.Kind[] KINDS = Outcome.Kind.values();
    private static final SendState[] SEND_STATES = SendState.values();
    private static final String[] SIDES = {"client", "server"};

    private final MeterRegistry registry;
    private final double[] percentiles;
    /**
     * In-flight counts by service, meters by method, created on first use (a racing creation registers the same
     * meter twice, which Micrometer answers with the one already registered).
     */
    private final ConcurrentHashMap<ServiceKey, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<MethodKey, MethodMeters> methods = new ConcurrentHashMap<>();

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
        inFlight(service(inv)).incrementAndGet();
    }

    @Override
    public void onComplete(Invocation inv, Outcome outcome) {
        ServiceKey service = service(inv);
        inFlight(service).decrementAndGet();
        MethodKey key = new MethodKey(service, inv.method());
        MethodMeters method = methods.get(key);
        if (method == null) {
            method = methods.computeIfAbsent(key, MethodMeters::new);
        }
        method.timer(outcome.kind()).record(outcome.durationNanos(), TimeUnit.NANOSECONDS);
        if (outcome.exception() instanceof RpcTimeoutException) {
            method.timeouts(((RpcTimeoutException) outcome.exception()).sendState()).increment();
        }
    }

    private static ServiceKey service(Invocation inv) {
        return new ServiceKey(inv.side().ordinal(), inv.applicationName(), inv.service(), orNone(inv.group()),
                version(inv.version()));
    }

    /** A version tag: none for null, empty, Dubbo's default {@code 0.0.0} and the wildcard {@code *}. */
    private static String version(String version) {
        return version == null || version.equals("0.0.0") || version.equals("*") ? "" : version;
    }

    private static String orNone(String s) {
        return s == null ? "" : s;
    }

    private AtomicInteger inFlight(ServiceKey service) {
        AtomicInteger count = inFlight.get(service);
        return count != null ? count : inFlight.computeIfAbsent(service, k -> {
            AtomicInteger c = new AtomicInteger();
            Gauge.builder("sluice.calls.in.flight", c, AtomicInteger::get).tags(k.tags()).register(registry);
            return c;
        });
    }

    /** One service of one side of one application: the tags every call meter shares. */
    private record ServiceKey(int side, String application, String service, String group, String version) {
        Tags tags() {
            return Tags.of("side", SIDES[side], "interface", service, "group", group, "version", version,
                    "application.name", application);
        }
    }

    /** One method of a {@link ServiceKey}. */
    private record MethodKey(ServiceKey service, String method) {
    }

    /** One method's timers by outcome and timeout counters by send state, created on first use. */
    private final class MethodMeters {
        final Tags tags;
        final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(KINDS.length);
        final AtomicReferenceArray<Counter> timeouts = new AtomicReferenceArray<>(SEND_STATES.length);

        MethodMeters(MethodKey key) {
            this.tags = key.service().tags().and("method", key.method());
        }

        Timer timer(Outcome.Kind kind) {
            Timer timer = timers.get(kind.ordinal());
            if (timer == null) {
                timer = Timer.builder("sluice.calls")
                        .tags(tags.and("outcome", kind.name().toLowerCase(Locale.ROOT)))
                        .publishPercentiles(percentiles).register(registry);
                timers.set(kind.ordinal(), timer);
            }
            return timer;
        }

        Counter timeouts(SendState state) {
            Counter counter = timeouts.get(state.ordinal());
            if (counter == null) {
                counter = Counter.builder("sluice.calls.timeouts")
                        .tags(tags.and("sent", state.name().toLowerCase(Locale.ROOT)))
                        .register(registry);
                timeouts.set(state.ordinal(), counter);
            }
            return counter;
        }
    }
}
