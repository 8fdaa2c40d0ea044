package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 10, item 4: the transport's own redial waits a random time between a floor and the backoff ceiling, so many
 * clients that lost one server at the same moment do not redial it in step.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ReconnectJitterTest {

    @Test
    void delaysStayBetweenTheFloorAndTheCeiling() {
        assertEquals(50, NettyClientTransport.jitteredDelay(100, 100, 0.0), "floor: half the initial backoff");
        assertTrue(NettyClientTransport.jitteredDelay(100, 100, 0.999_999) <= 100);
        assertEquals(50, NettyClientTransport.jitteredDelay(5_000, 100, 0.0));
        assertTrue(NettyClientTransport.jitteredDelay(5_000, 100, 0.999_999) <= 5_000);
        assertEquals(1, NettyClientTransport.jitteredDelay(1, 1, 0.5), "never zero");
    }

    /** A thousand clients losing one server at the same moment: their redials spread over the whole window. */
    @Test
    void clientsThatLostTheSameServerDoNotRedialInStep() {
        SplittableRandom random = new SplittableRandom(42);
        int[] buckets = new int[10]; // 10 buckets of 500 ms over [0, 5 s]
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int client = 0; client < 1_000; client++) {
            long d = NettyClientTransport.jitteredDelay(5_000, 100, random.nextDouble());
            min = Math.min(min, d);
            max = Math.max(max, d);
            buckets[(int) Math.min(9, d / 500)]++;
        }
        assertTrue(min >= 50 && max <= 5_000, min + ".." + max);
        for (int b = 0; b < buckets.length; b++) {
            // Uniform: ~100 per bucket (the first is 450 ms wide); in step would put all 1,000 in one.
            assertTrue(buckets[b] >= 50 && buckets[b] <= 160, "bucket " + b + ": " + buckets[b]);
        }
    }
}
