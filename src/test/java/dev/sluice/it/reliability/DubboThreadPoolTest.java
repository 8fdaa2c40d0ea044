package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code sluice} Dubbo {@code ThreadPool} ({@code threadpool=sluice}) between real Dubbo 3.3.6 providers and
 * consumers in a child JVM ({@link DubboAdapterScenario}, case {@code pool}): a {@code server=sluice} provider on the
 * pool serves a plain netty4 consumer and a sluice consumer on the pool's threads; a service that sleeps 5 ms, called
 * without pause by six callers, does not starve a fast one (and all six sleep at once: the pool grew past its core);
 * calls that block grow the pool to {@code threads} (8), {@code threads + queues} (10) are taken and the rest are
 * refused with Dubbo's "thread pool is exhausted" error at the consumer; a {@code server=netty4} provider with the
 * pool serves sluice consumers.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DubboThreadPoolTest {

    @Test
    void providersOnTheSluicePoolServeEveryConsumerGrowAndRefuseAsDubboDoes() throws Exception {
        ChildResult result = IsolatedJvm.of(DubboAdapterScenario.class)
                .name("dubbo-thread-pool")
                .args("pool")
                .timeout(Duration.ofSeconds(120))
                .run();
        System.out.println("threadpool=sluice: " + result);
        result.assertPassed("pool.sluice-provider", "pool.blocking", "pool.exhausted", "pool.netty4-provider",
                Scenario.LEAK_GATE);
        assertEquals(DubboAdapterScenario.POOL_NAPPERS, result.longMetric("pool.blocking", "mostNapping"));
        assertEquals(DubboAdapterScenario.POOL_THREADS, result.longMetric("pool.exhausted", "threads"));
        assertEquals(DubboAdapterScenario.POOL_THREADS + DubboAdapterScenario.POOL_QUEUES,
                result.longMetric("pool.exhausted", "served"));
        assertEquals(3, result.longMetric("pool.exhausted", "refused"), "two held calls and one probe");
        assertTrue(result.longMetric("pool.blocking", "worstFastMs") < 2_000, result.toString());
    }
}
