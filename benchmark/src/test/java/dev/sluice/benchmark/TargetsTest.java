package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.targets.DubboTarget;
import dev.sluice.benchmark.targets.SluiceTarget;
import dev.sluice.rpc.Serialization;
import java.util.List;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Timeout(60)
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

    /** {@code SLUICE_BENCH_ANSWER_SPIN} (or its property) turns the sluice server's answer spin on, in µs. */
    @Test
    void theSluiceServersAnswerSpinIsChosenInMicroseconds() {
        assertEquals(java.time.Duration.ZERO, SluiceTarget.answerSpin(), "off unless asked for");
        System.setProperty(SluiceTarget.ANSWER_SPIN_PROPERTY, "50");
        try {
            assertEquals(java.time.Duration.ofNanos(50_000), SluiceTarget.answerSpin());
            assertTrue(Targets.get("sluice").description().contains("answer spin 50 µs"),
                    Targets.get("sluice").description());
            System.setProperty(SluiceTarget.ANSWER_SPIN_PROPERTY, "fast");
            assertThrows(IllegalArgumentException.class, SluiceTarget::answerSpin);
        } finally {
            System.clearProperty(SluiceTarget.ANSWER_SPIN_PROPERTY);
        }
    }

    /** With an answer spin the sluice server's loops are its own, and what they counted is printed at close. */
    @Test
    void aSpinningSluiceServerSaysWhatItsLoopsCountedAndStopsThem() throws Exception {
        System.setProperty(SluiceTarget.ANSWER_SPIN_PROPERTY, "50");
        java.io.PrintStream out = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        List<Thread> loops;
        try {
            AutoCloseable server = Targets.get("sluice").startServer("127.0.0.1", 0);
            loops = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("sluice-server")).toList();
            assertTrue(!loops.isEmpty(), "the lent loops run");
            System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
            server.close();
        } finally {
            System.setOut(out);
            System.clearProperty(SluiceTarget.ANSWER_SPIN_PROPERTY);
        }
        String said = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(said.contains("answer spin windows ended by their answer 0, run out 0, next window 50 µs"), said);
        for (Thread loop : loops) {
            loop.join(10_000);
            assertTrue(!loop.isAlive(), loop.getName() + " stopped");
        }
    }

    @Test
    void dubboNetty4IsAvailableFromDubbosSpiFiles() {
        assertTrue(DubboTarget.transporterNames(getClass().getClassLoader()).contains("netty4"));
        assertNull(Targets.get("dubbo-netty4").unavailableReason());
    }

    @Test
    void aMissingTransporterIsReportedNotThrown() {
        DubboTarget t = new DubboTarget("x", "no-such-transporter", "fastjson2", "test");
        assertTrue(t.unavailableReason().contains("no-such-transporter"));
    }

    @Test
    void hessian2TargetsAreAGroupComparedWithDubboInHessian2() {
        assertEquals(List.of("dubbo-netty4", "dubbo-sluice", "sluice", "raw"), Targets.defaultNames());
        assertEquals(List.of("dubbo-netty4-hessian2", "dubbo-sluice-hessian2", "sluice-hessian2"),
                Targets.group(Targets.HESSIAN2));
        List<String> all = new java.util.ArrayList<>(Targets.names());
        all.removeAll(Targets.group(Targets.OVERHEAD));
        assertEquals(all, Targets.group(Targets.ALL), "all (the smoke) leaves the overhead targets out");
        assertEquals(List.of("sluice+jfr", "sluice+metrics"), Targets.group(Targets.OVERHEAD));
        assertEquals("dubbo-netty4-hessian2", Targets.baselineOf("sluice-hessian2"));
        assertEquals("dubbo-netty4-hessian2", Targets.baselineOf("dubbo-netty4-hessian2"));
        assertEquals("dubbo-netty4", Targets.baselineOf("sluice"));
        assertEquals("dubbo-netty4", Targets.baselineOf("raw"));
        assertEquals("hessian2", ((DubboTarget) Targets.get("dubbo-netty4-hessian2")).serialization());
        assertEquals("fastjson2", ((DubboTarget) Targets.get("dubbo-netty4")).serialization());
        assertEquals(Serialization.HESSIAN2, ((SluiceTarget) Targets.get("sluice-hessian2")).serialization());
        assertEquals(Serialization.FASTJSON2, ((SluiceTarget) Targets.get("sluice")).serialization());
        for (String name : Targets.names()) {
            assertNull(Targets.get(name).unavailableReason(), name);
            assertTrue(Targets.get(name).supportsAsync(), name);
        }
    }

    @Test
    void targetListsExpandGroupsInReportOrder() {
        assertEquals(List.of("sluice", "dubbo-netty4-hessian2", "dubbo-sluice-hessian2", "sluice-hessian2"),
                Targets.expand(List.of("hessian2", "sluice", "sluice-hessian2")));
        assertEquals(Targets.names(), Targets.expand(List.of("fastjson2", "hessian2", "overhead", "levers")));
        assertEquals(List.of("dubbo-netty4", "dubbo-sluice+fastclient"),
                Targets.expand(List.of("levers", "dubbo-netty4")));
        assertEquals("dubbo-netty4", Targets.baselineOf("dubbo-sluice+fastclient"));
        assertEquals(List.of("sluice", "sluice+jfr", "sluice+metrics"),
                Targets.expand(List.of("sluice", "overhead")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Targets.expand(List.of("sluice", "protobuf")));
        assertTrue(e.getMessage().contains("protobuf") && e.getMessage().contains("hessian2"), e.getMessage());
    }
}
