package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The protocol version of every request a server decodes (body field 0) decides whether its response carries
 * attachments: read it right, and without allocating per request.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProtocolVersionTest {

    @Test
    void protocolVersionsAreReadWithoutAllocating() {
        assertTrue(DubboConstants.supportsResponseAttachments("2.0.2"));
        assertTrue(DubboConstants.supportsResponseAttachments("2.0.10"));
        assertTrue(DubboConstants.supportsResponseAttachments("2.0.99"));
        assertTrue(DubboConstants.supportsResponseAttachments("2.0.2.0"));
        assertFalse(DubboConstants.supportsResponseAttachments("2.0.1"));
        assertFalse(DubboConstants.supportsResponseAttachments("2.0.100"));
        assertFalse(DubboConstants.supportsResponseAttachments("2.1"));
        assertFalse(DubboConstants.supportsResponseAttachments("2.0.2.0.0"));
        assertFalse(DubboConstants.supportsResponseAttachments("2..2"));
        assertFalse(DubboConstants.supportsResponseAttachments("2.0.x"));
        assertFalse(DubboConstants.supportsResponseAttachments("."));
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++) {
            DubboConstants.supportsResponseAttachments("2.0.2"); // compiled before measuring
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        boolean all = true;
        for (int i = 0; i < 1_000; i++) {
            all &= DubboConstants.supportsResponseAttachments("2.0.2");
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(all);
        // with String.split: 288 bytes per call (its list, its array and the parts)
        assertTrue(allocated < 10_000, allocated + " bytes for 1,000 calls");
    }
}
