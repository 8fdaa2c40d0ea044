package dev.sluice.transport.micrometer;

import dev.sluice.transport.AllocatorKind;
import dev.sluice.transport.netty.EventLoops;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocatorMetric;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The allocator and event-loop meters of the Netty Sluice runs on, under the names and tag keys of Micrometer's own
 * {@code NettyAllocatorMetrics} and {@code NettyEventExecutorMetrics}, so dashboards built for those show Sluice's
 * allocator and loops too:
 *
 * <ul>
 *   <li>{@code netty.allocator.memory.used}, {@code netty.allocator.memory.pinned} (bytes; tags {@code id},
 *       {@code allocator.type}, {@code memory.type} = {@code heap}/{@code direct});
 *       {@code netty.allocator.pooled.arenas} ({@code memory.type}), {@code netty.allocator.pooled.cache.size}
 *       ({@code cache.type} = {@code normal}/{@code small}), {@code netty.allocator.pooled.threadlocal.caches},
 *       {@code netty.allocator.pooled.chunk.size} — the pooled ones for the pooled allocator only;</li>
 *   <li>{@code netty.eventexecutor.tasks.pending}, tag {@code name} = the loop's thread name
 *       ({@code sluice-server-…}, {@code sluice-client-…}, {@code sluice-dubbo-client-…}), removed when the loop
 *       terminates.</li>
 * </ul>
 *
 * <p><b>Why not Micrometer's binders.</b> They take Netty's own types ({@code io.netty.buffer.ByteBufAllocatorMetric
 * Provider}, {@code io.netty.util.concurrent.EventExecutor}). The self-contained {@code sluice-dubbo} jar relocates
 * the Netty it runs on, this class included, to {@code dev.sluice.shaded.io.netty}, so its loops and allocator are
 * not of those types and Micrometer's binders cannot take them. This class is relocated with them and reads the
 * same Netty metric APIs ({@link PooledByteBufAllocatorMetric}, {@link SingleThreadEventExecutor#pendingTasks()}).
 *
 * <p>Threads: {@link #bind} on the thread that builds a transport; a loop's gauge is registered by a task on that
 * loop (it names the gauge after its own thread without waiting for it to start). Thread-safe.
 */
final class NettyResourceMeters {
    static final String MEMORY_USED = "netty.allocator.memory.used";
    static final String MEMORY_PINNED = "netty.allocator.memory.pinned";
    static final String POOLED_ARENAS = "netty.allocator.pooled.arenas";
    static final String POOLED_CACHE_SIZE = "netty.allocator.pooled.cache.size";
    static final String POOLED_THREADLOCAL_CACHES = "netty.allocator.pooled.threadlocal.caches";
    static final String POOLED_CHUNK_SIZE = "netty.allocator.pooled.chunk.size";
    static final String TASKS_PENDING = "netty.eventexecutor.tasks.pending";

    private final MeterRegistry registry;
    /** Loops and allocators already bound by this observer (weakly held: a loop that is gone is forgotten). */
    private final Set<Object> bound = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    NettyResourceMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Binds the allocator of {@code kind} and each loop not bound before. */
    void bind(Iterable<? extends Executor> loops, AllocatorKind kind) {
        ByteBufAllocator allocator = EventLoops.allocator(kind);
        if (bound.add(allocator)) {
            bindAllocator(allocator);
        }
        for (Executor loop : loops) {
            if (loop instanceof SingleThreadEventExecutor && bound.add(loop)) {
                bindLoop((SingleThreadEventExecutor) loop);
            }
        }
    }

    private void bindLoop(SingleThreadEventExecutor loop) {
        try {
            loop.execute(() -> {
                Gauge gauge = Gauge.builder(TASKS_PENDING, loop, SingleThreadEventExecutor::pendingTasks)
                        .tag("name", Thread.currentThread().getName())
                        .description("Tasks queued on the event loop, not yet run").register(registry);
                loop.terminationFuture().addListener(f -> registry.remove(gauge));
            });
        } catch (RejectedExecutionException e) {
            // the loop is shutting down: nothing to watch
        }
    }

    private void bindAllocator(ByteBufAllocator allocator) {
        if (!(allocator instanceof ByteBufAllocatorMetricProvider)) {
            return;
        }
        ByteBufAllocatorMetric metric = ((ByteBufAllocatorMetricProvider) allocator).metric();
        Tags tags = Tags.of("id", String.valueOf(allocator.hashCode()),
                "allocator.type", allocator.getClass().getSimpleName());
        memory(MEMORY_USED, metric, tags.and("memory.type", "heap"), m -> m.usedHeapMemory());
        memory(MEMORY_USED, metric, tags.and("memory.type", "direct"), m -> m.usedDirectMemory());
        if (!(allocator instanceof PooledByteBufAllocator)) {
            return;
        }
        PooledByteBufAllocator pooled = (PooledByteBufAllocator) allocator;
        PooledByteBufAllocatorMetric pm = pooled.metric();
        Gauge.builder(MEMORY_PINNED, pooled, PooledByteBufAllocator::pinnedHeapMemory)
                .tags(tags.and("memory.type", "heap")).baseUnit("bytes").register(registry);
        Gauge.builder(MEMORY_PINNED, pooled, PooledByteBufAllocator::pinnedDirectMemory)
                .tags(tags.and("memory.type", "direct")).baseUnit("bytes").register(registry);
        Gauge.builder(POOLED_ARENAS, pm, PooledByteBufAllocatorMetric::numHeapArenas)
                .tags(tags.and("memory.type", "heap")).register(registry);
        Gauge.builder(POOLED_ARENAS, pm, PooledByteBufAllocatorMetric::numDirectArenas)
                .tags(tags.and("memory.type", "direct")).register(registry);
        Gauge.builder(POOLED_CACHE_SIZE, pm, PooledByteBufAllocatorMetric::normalCacheSize)
                .tags(tags.and("cache.type", "normal")).baseUnit("bytes").register(registry);
        Gauge.builder(POOLED_CACHE_SIZE, pm, PooledByteBufAllocatorMetric::smallCacheSize)
                .tags(tags.and("cache.type", "small")).baseUnit("bytes").register(registry);
        Gauge.builder(POOLED_THREADLOCAL_CACHES, pm, PooledByteBufAllocatorMetric::numThreadLocalCaches)
                .tags(tags).register(registry);
        Gauge.builder(POOLED_CHUNK_SIZE, pm, PooledByteBufAllocatorMetric::chunkSize)
                .tags(tags).baseUnit("bytes").register(registry);
    }

    private void memory(String name, ByteBufAllocatorMetric metric, Tags tags,
                        java.util.function.ToDoubleFunction<ByteBufAllocatorMetric> value) {
        Gauge.builder(name, metric, value).tags(tags).baseUnit("bytes").register(registry);
    }
}
