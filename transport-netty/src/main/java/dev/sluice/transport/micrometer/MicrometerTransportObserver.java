package dev.sluice.transport.micrometer;

import dev.sluice.transport.AllocatorKind;
import dev.sluice.transport.TransportObserver;
import dev.sluice.transport.TransportOptions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The transport meters of one transport (a client, a server, or every connection of a Dubbo {@code sluice}
 * transporter), tagged {@code transport=<name>}; bind it with {@link TransportOptions.Builder#observer}:
 *
 * <pre>{@code
 * TransportOptions options = TransportOptions.builder()
 *         .observer(MicrometerTransportObserver.create(registry, "orders-client")).build();
 * }</pre>
 *
 * <table>
 * <caption>Meters (tag {@code transport}); in Prometheus: dots to underscores, the base unit and {@code _total}
 * appended by the registry</caption>
 * <tr><td>{@code sluice.transport.connections}</td><td>gauge: open connections</td></tr>
 * <tr><td>{@code sluice.transport.connections.stalled}</td><td>gauge: open connections marked stalled (stall
 * detection)</td></tr>
 * <tr><td>{@code sluice.transport.data.received} / {@code .data.sent}</td><td>counters, bytes</td></tr>
 * <tr><td>{@code sluice.transport.frames.received} / {@code .frames.sent}</td><td>counters</td></tr>
 * <tr><td>{@code sluice.transport.write.messages}</td><td>distribution: frames per write (one write, one
 * flush)</td></tr>
 * <tr><td>{@code sluice.transport.queue.wait}</td><td>timer: enqueue to written, per queued frame</td></tr>
 * <tr><td>{@code sluice.transport.write.pending}</td><td>gauge, bytes: accepted and not yet taken by the socket,
 * over open connections</td></tr>
 * <tr><td>{@code sluice.transport.write.refused}</td><td>counter: frames refused for the pending-bytes cap</td></tr>
 * <tr><td>{@code sluice.transport.unwritable}</td><td>timer: periods a channel was unwritable</td></tr>
 * <tr><td>{@code sluice.transport.drain.bound.hits}</td><td>counter: drains that stopped at their chunk bound with
 * more queued</td></tr>
 * <tr><td>{@code sluice.transport.decode.errors}</td><td>counter</td></tr>
 * <tr><td>{@code sluice.transport.reconnects}</td><td>counter (clients)</td></tr>
 * </table>
 *
 * <p>Besides these, the first transport started with this observer binds the allocator and event loops it runs on
 * (each once): {@code netty.allocator.*} and {@code netty.eventexecutor.tasks.pending}, the names and tags of
 * Micrometer's own Netty binders (see {@code NettyResourceMeters} for why they are Sluice's own code).
 *
 * <p>The two distributions publish the percentiles given to {@link #create(MeterRegistry, String, double...)}
 * (none by default; a registry's own histogram support, e.g. Prometheus buckets, is enabled with
 * {@code MeterFilter}s as usual). Threads: called from event loops and callers' threads; every meter is
 * thread-safe and non-blocking. Tag cardinality is one value per observer created.
 */
public final class MicrometerTransportObserver implements TransportObserver {
    private static final ConcurrentHashMap<String, MicrometerTransportObserver> GLOBAL = new ConcurrentHashMap<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger stalled = new AtomicInteger();
    private final Set<LongSupplier> pending = ConcurrentHashMap.newKeySet();
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter framesIn;
    private final Counter framesOut;
    private final DistributionSummary messagesPerWrite;
    private final Timer queueWait;
    private final Timer unwritable;
    private final Counter boundHits;
    private final Counter exceeded;
    private final Counter decodeErrors;
    private final Counter reconnects;
    private final NettyResourceMeters resources;

    private MicrometerTransportObserver(MeterRegistry registry, String name, double[] percentiles) {
        Tags tags = Tags.of("transport", Objects.requireNonNull(name, "name"));
        Gauge.builder("sluice.transport.connections", connections, AtomicInteger::get).tags(tags)
                .description("Open connections").register(registry);
        Gauge.builder("sluice.transport.connections.stalled", stalled, AtomicInteger::get).tags(tags)
                .description("Open connections marked stalled: written to, and the peer did not answer the probe")
                .register(registry);
        Gauge.builder("sluice.transport.write.pending", pending, MicrometerTransportObserver::sum).tags(tags)
                .baseUnit("bytes").description("Bytes accepted and not yet taken by the socket").register(registry);
        bytesIn = Counter.builder("sluice.transport.data.received").tags(tags).baseUnit("bytes")
                .description("Bytes read from sockets").register(registry);
        bytesOut = Counter.builder("sluice.transport.data.sent").tags(tags).baseUnit("bytes")
                .description("Bytes written and flushed").register(registry);
        framesIn = Counter.builder("sluice.transport.frames.received").tags(tags)
                .description("Frames decoded and handed on").register(registry);
        framesOut = Counter.builder("sluice.transport.frames.sent").tags(tags)
                .description("Frames written and flushed").register(registry);
        messagesPerWrite = DistributionSummary.builder("sluice.transport.write.messages").tags(tags)
                .description("Frames per write (one write and one flush)").publishPercentiles(percentiles)
                .register(registry);
        queueWait = Timer.builder("sluice.transport.queue.wait").tags(tags)
                .description("From enqueue to written, per queued frame").publishPercentiles(percentiles)
                .register(registry);
        unwritable = Timer.builder("sluice.transport.unwritable").tags(tags)
                .description("Periods a channel was unwritable").register(registry);
        boundHits = Counter.builder("sluice.transport.drain.bound.hits").tags(tags)
                .description("Drains that stopped at their chunk bound with more queued").register(registry);
        exceeded = Counter.builder("sluice.transport.write.refused").tags(tags)
                .description("Frames refused: over the pending-bytes cap").register(registry);
        decodeErrors = Counter.builder("sluice.transport.decode.errors").tags(tags).register(registry);
        reconnects = Counter.builder("sluice.transport.reconnects").tags(tags).register(registry);
        resources = new NettyResourceMeters(registry);
    }

    /**
     * Registers the meters of a transport named {@code name} (keep names few: one per client, server or
     * transporter) with {@code percentiles} (e.g. 0.5, 0.99) published for frames per write and queue wait.
     */
    public static MicrometerTransportObserver create(MeterRegistry registry, String name, double... percentiles) {
        return new MicrometerTransportObserver(Objects.requireNonNull(registry, "registry"), name,
                percentiles.length == 0 ? null : percentiles.clone());
    }

    /**
     * The observer of transports named {@code name} in Micrometer's global registry ({@code Metrics.globalRegistry},
     * which Spring Boot and Dubbo's own metrics feed by default), one per name: every endpoint bound with the same
     * name shares its meters. Used by the Dubbo {@code sluice} Transporter's {@code sluice.metrics} URL parameter.
     */
    public static TransportObserver global(String name) {
        return GLOBAL.computeIfAbsent(name, n -> create(Metrics.globalRegistry, n));
    }

    private static double sum(Set<LongSupplier> suppliers) {
        long total = 0;
        for (LongSupplier s : suppliers) {
            total += s.getAsLong();
        }
        return total;
    }

    @Override
    public void transportStarted(Iterable<? extends Executor> eventLoops, AllocatorKind allocator) {
        resources.bind(eventLoops, allocator);
    }

    @Override
    public void stallChanged(boolean isStalled) {
        if (isStalled) {
            stalled.incrementAndGet();
        } else {
            stalled.decrementAndGet();
        }
    }

    @Override
    public void connectionOpened(LongSupplier pendingBytes) {
        connections.incrementAndGet();
        pending.add(pendingBytes);
    }

    @Override
    public void connectionClosed(LongSupplier pendingBytes) {
        connections.decrementAndGet();
        pending.remove(pendingBytes);
    }

    @Override
    public void bytesRead(int bytes) {
        bytesIn.increment(bytes);
    }

    @Override
    public void frameRead() {
        framesIn.increment();
    }

    @Override
    public void batchWritten(int messages, long bytes, boolean chunkBoundHit) {
        framesOut.increment(messages);
        bytesOut.increment(bytes);
        messagesPerWrite.record(messages);
        if (chunkBoundHit) {
            boundHits.increment();
        }
    }

    @Override
    public void queueWait(long nanos) {
        queueWait.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    @Override
    public void unwritable(long nanos) {
        unwritable.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    @Override
    public void pendingBytesExceeded() {
        exceeded.increment();
    }

    @Override
    public void decodeError() {
        decodeErrors.increment();
    }

    @Override
    public void reconnected() {
        reconnects.increment();
    }
}
