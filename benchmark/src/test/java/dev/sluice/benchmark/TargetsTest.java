package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.targets.DubboTarget;
import org.junit.jupiter.api.Test;

class TargetsTest {

    @Test
    void baselineComesFirstAndEveryTargetIsRegistered() {
        assertEquals(Targets.BASELINE, Targets.names().get(0));
        assertTrue(Targets.names().containsAll(java.util.List.of("dubbo-netty4", "dubbo-sluice", "sluice", "raw")));
        for (String name : Targets.names()) {
            assertEquals(name, Targets.get(name).name());
        }
        assertThrows(IllegalArgumentException.class, () -> Targets.get("nope"));
    }

    @Test
    void dubboNetty4IsAvailableFromDubbosSpiFiles() {
        assertTrue(DubboTarget.transporterNames(getClass().getClassLoader()).contains("netty4"));
        assertNull(Targets.get("dubbo-netty4").unavailableReason());
    }

    @Test
    void aMissingTransporterIsReportedNotThrown() {
        DubboTarget t = new DubboTarget("x", "no-such-transporter", "test");
        assertTrue(t.unavailableReason().contains("no-such-transporter"));
    }
}
