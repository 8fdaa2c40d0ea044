package dev.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Proves the gate works: a deliberately leaked buffer is caught, and a released one is not reported. */
@Timeout(60)
class LeakGateTest {

    @Test
    void runsWithParanoidRecordingDetector() {
        assertTrue(LeakGate.active(), "tests must run with paranoid leak detection and LeakGate$Detector");
    }

    @Test
    void deliberateLeakIsCaught() {
        LeakGate.collectLeaks(); // start clean
        leakOne();
        List<String> leaks = LeakGate.collectLeaks();
        // The leak is consumed here so the class-level gate does not fail this test class.
        assertEquals(1, leaks.size(), "expected exactly the deliberate leak, got " + leaks);
        assertTrue(leaks.get(0).contains("LEAK:"), leaks.get(0));
        assertTrue(leaks.get(0).contains("deliberate-leak-marker"), "the record names where the buffer was touched");
    }

    @Test
    void releasedBufferIsNotReported() {
        LeakGate.collectLeaks();
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.writeLong(42);
        buf.release();
        assertFalse(LeakGate.collectLeaks().iterator().hasNext());
    }

    private static void leakOne() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.touch("deliberate-leak-marker");
        buf.writeInt(7);
        // no release: dropped on the floor
    }
}
