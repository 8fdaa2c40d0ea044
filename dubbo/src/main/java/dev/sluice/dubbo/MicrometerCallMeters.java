package dev.sluice.dubbo;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The per-call timers of the Dubbo {@code sluice} Transporter in Micrometer's global registry: {@code sluice.calls},
 * tags {@code side} ({@code client}/{@code server}), {@code interface}, {@code method}, {@code group},
 * {@code version}, {@code application.name}, {@code outcome} — the tag keys Dubbo's own call meters carry
 * ({@code MetricsConstants.TAG_INTERFACE_KEY} and its siblings), so they join Dubbo's dashboards, and the meter name
 * and tag keys of the standalone {@code MicrometerInterceptor}, so one dashboard reads both and a registry that
 * insists on one tag-key set per meter name (Prometheus) accepts both in one JVM. For that reason there is no
 * {@code transport} tag: all endpoints of one side share their timers, as all calls through one interceptor do.
 *
 * <p>The only class of this package that touches Micrometer: loaded by {@link DubboUrlOptions#callMeters} when
 * {@code sluice.metrics} is set, never otherwise, so Micrometer stays optional.
 *
 * <p>Threads: any (senders, event loops, Dubbo's consumer threads); thread-safe and non-blocking. A racing first
 * creation registers the same meter twice, which Micrometer answers with the one already registered.
 */
final class MicrometerCallMeters implements CallMeters {
    private static final CallMeters.Outcome[] OUTCOMES = CallMeters.Outcome.values();

    private final MeterRegistry registry;
    private final String side;
    private final ConcurrentHashMap<Key, MethodTimers> methods = new ConcurrentHashMap<>();

    private MicrometerCallMeters(MeterRegistry registry, String side) {
        this.registry = registry;
        this.side = side;
    }

    /** The global registry's call timers of one side, one instance per side per JVM. */
    static CallMeters global(boolean client) {
        return client ? Global.CLIENT : Global.SERVER;
    }

    /** Created when first asked for (class initialisation is lazy and thread-safe). */
    private static final class Global {
        static final MicrometerCallMeters CLIENT = new MicrometerCallMeters(Metrics.globalRegistry, "client");
        static final MicrometerCallMeters SERVER = new MicrometerCallMeters(Metrics.globalRegistry, "server");
    }

    @Override
    public Method method(String application, String service, String group, String version, String method) {
        Key key = new Key(application, service, group, version, method);
        MethodTimers timers = methods.get(key);
        return timers != null ? timers : methods.computeIfAbsent(key, MethodTimers::new);
    }

    /** What one method's timers are found by. */
    private record Key(String application, String service, String group, String version, String method) {
    }

    /** One method's timers by outcome, created on first use. */
    private final class MethodTimers implements Method {
        final Tags tags;
        final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(OUTCOMES.length);

        MethodTimers(Key key) {
            this.tags = Tags.of("side", side, "interface", key.service(), "method", key.method(), "group",
                    key.group(), "version", key.version(), "application.name", key.application());
        }

        @Override
        public void record(CallMeters.Outcome outcome, long nanos) {
            Timer timer = timers.get(outcome.ordinal());
            if (timer == null) {
                timer = Timer.builder("sluice.calls").tags(tags.and("outcome", outcome.tag)).register(registry);
                timers.set(outcome.ordinal(), timer);
            }
            timer.record(nanos, TimeUnit.NANOSECONDS);
        }
    }
}
