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

    /**
     * The provider-side levers: a group of their own, compared with dubbo-netty4, in {@code all} (so {@code --smoke}
     * runs them) but not in the default run; each sets only its lever on top of its Transporter.
     */
    @Test
    void theProviderLeversAreAGroupInAllButNotInTheDefaultRun() {
        assertEquals(List.of("dubbo-sluice+pool", "dubbo-netty4+pool", "dubbo-sluice+direct",
                "dubbo-sluice+fastclient"), Targets.group(Targets.LEVERS));
        assertTrue(Targets.group(Targets.ALL).containsAll(Targets.group(Targets.LEVERS)));
        assertTrue(java.util.Collections.disjoint(Targets.defaultNames(), Targets.group(Targets.LEVERS)));
        DubboTarget pool = (DubboTarget) Targets.get("dubbo-sluice+pool");
        assertEquals(List.of("sluice", "sluice", "fastjson2"), List.of(pool.transporter(), pool.threadpool(),
                pool.serialization()));
        assertNull(pool.dispatcher());
        DubboTarget netty4Pool = (DubboTarget) Targets.get("dubbo-netty4+pool");
        assertEquals(List.of("netty4", "sluice"), List.of(netty4Pool.transporter(), netty4Pool.threadpool()));
        DubboTarget direct = (DubboTarget) Targets.get("dubbo-sluice+direct");
        assertEquals(List.of("sluice", "direct"), List.of(direct.transporter(), direct.dispatcher()));
        assertNull(direct.threadpool());
        assertTrue(direct.description().contains("not a recommendation"), direct.description());
        for (String name : Targets.group(Targets.LEVERS)) {
            assertEquals(Targets.BASELINE, Targets.baselineOf(name));
            assertNull(Targets.get(name).unavailableReason(), name);
        }
        DubboTarget missing = new DubboTarget("x", "netty4", "fastjson2", "no-such-pool", null, "test");
        assertTrue(missing.unavailableReason().contains("no Dubbo ThreadPool named 'no-such-pool'"),
                missing.unavailableReason());
    }

    /**
     * {@code --targets peers}: Dubbo's triple and grpc-java with the two they are compared with, in a group of their
     * own that the default run leaves out; both serve asynchronous calls too, and their classes are here.
     */
    @Test
    void thePeersAreDubboTripleAndGrpcJavaBesideTheBaselineAndSluice() {
        assertEquals(List.of("dubbo-netty4", "sluice", "dubbo-triple", "grpc-java"),
                Targets.expand(List.of("peers")));
        assertEquals(List.of("dubbo-netty4", "sluice", "dubbo-triple", "grpc-java"), Targets.group(Targets.PEERS));
        assertTrue(Targets.group(Targets.ALL).containsAll(List.of("dubbo-triple", "grpc-java")));
        assertTrue(!Targets.defaultNames().contains("dubbo-triple") && !Targets.defaultNames().contains("grpc-java"));
        assertEquals("dubbo-netty4", Targets.baselineOf("dubbo-triple"));
        assertEquals("dubbo-netty4", Targets.baselineOf("grpc-java"));

        DubboTarget triple = (DubboTarget) Targets.get("dubbo-triple");
        assertEquals("tri", triple.protocol());
        assertNull(triple.serialization(), "triple's own default: no serialization named");
        assertNull(triple.transporter(), "triple's own HTTP/2 server and client");
        assertNull(triple.unavailableReason(), "Dubbo's Protocol SPI files name tri");
        assertTrue(new DubboTarget("x", "no-such-transporter", "fastjson2", "t").unavailableReason()
                .contains("Transporter"));
        for (String peer : List.of("dubbo-triple", "grpc-java")) {
            String d = Targets.get(peer).description();
            assertTrue(d.contains("HTTP/2") && d.contains("pays"), d);
        }
        assertTrue(triple.description().contains("hessian2"), triple.description());
        assertTrue(Targets.get("grpc-java").description().contains("protobuf"));
    }

    @Test
    void targetListsExpandGroupsInReportOrder() {
        assertEquals(List.of("sluice", "dubbo-netty4-hessian2", "dubbo-sluice-hessian2", "sluice-hessian2"),
                Targets.expand(List.of("hessian2", "sluice", "sluice-hessian2")));
        assertEquals(Targets.names(), Targets.expand(List.of("fastjson2", "hessian2", "levers", "overhead", "peers")));
        assertEquals("dubbo-netty4", Targets.baselineOf("dubbo-sluice+fastclient"));
        assertEquals(List.of("sluice", "sluice+jfr", "sluice+metrics"),
                Targets.expand(List.of("sluice", "overhead")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Targets.expand(List.of("sluice", "protobuf")));
        assertTrue(e.getMessage().contains("protobuf") && e.getMessage().contains("hessian2"), e.getMessage());
    }
}
