package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.FrameTooLargeException;
import dev.sluice.transport.TransportOptions;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One knob per setting: where an endpoint builder and its {@link TransportOptions} both carry a setting (the payload
 * limit, the client's heartbeat interval and stall timeout, the server's idle timeout), the outcome does not depend
 * on the order of the calls; an explicit value beats a default whichever knob it came through, and two different
 * explicit values fail at build time naming both knobs and both values.
 */
@Timeout(30)
class BuilderKnobsTest {
    private static final TransportOptions UNRELATED = TransportOptions.builder().connectTimeout(Duration.ofSeconds(2))
            .build();

    private static SluiceClient.Builder client() {
        return SluiceClient.builder().address("127.0.0.1", 1);
    }

    private static SluiceServer.Builder server() {
        return SluiceServer.builder().port(0)
                .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl());
    }

    @Test
    void payloadLimitSetBeforeOrAfterOptionsLimitsWhatTheClientSends() {
        try (SluiceServer server = server().start()) {
            for (UnaryOperator<SluiceClient.Builder> order : List.<UnaryOperator<SluiceClient.Builder>>of(
                    b -> b.payloadLimit(1024).options(UNRELATED), b -> b.options(UNRELATED).payloadLimit(1024))) {
                try (SluiceClient client = order.apply(SluiceClient.builder().address("127.0.0.1", server.port()))
                        .failIfNotConnected(true).build()) {
                    InterceptorTest.Greeter g = client.proxy(InterceptorTest.Greeter.class);
                    FrameTooLargeException e = assertThrows(FrameTooLargeException.class,
                            () -> g.greet("x".repeat(4096)), "a 4 KiB request over a 1 KiB limit");
                    assertTrue(e.getMessage().contains("1024"), e.getMessage());
                }
            }
        }
    }

    @Test
    void payloadLimitSetBeforeOrAfterOptionsReachesTheServer() {
        assertEquals(1024, server().payloadLimit(1024).options(UNRELATED).resolvedOptions().payloadLimit());
        assertEquals(1024, server().options(UNRELATED).payloadLimit(1024).resolvedOptions().payloadLimit());
        TransportOptions explicit = TransportOptions.builder().payloadLimit(2048).build();
        assertEquals(2048, server().options(explicit).resolvedOptions().payloadLimit(), "options' explicit value");
        assertEquals(2048, server().payloadLimit(2048).options(explicit).resolvedOptions().payloadLimit(),
                "the same value twice is no conflict");
    }

    @Test
    void differentPayloadLimitsOnBuilderAndOptionsFailNamingBoth() {
        TransportOptions explicit = TransportOptions.builder().payloadLimit(2048).build();
        assertConflict(() -> client().payloadLimit(1024).options(explicit).build(), "payloadLimit", "1024", "2048");
        assertConflict(() -> client().options(explicit).payloadLimit(1024).build(), "payloadLimit", "1024", "2048");
        assertConflict(() -> server().payloadLimit(1024).options(explicit).start(), "payloadLimit", "1024", "2048");
        assertConflict(() -> server().options(explicit).payloadLimit(1024).start(), "payloadLimit", "1024", "2048");
    }

    @Test
    void clientHeartbeatIsTheOptionsReaderIdleWhicheverKnobSetsIt() {
        Duration interval = Duration.ofSeconds(5);
        TransportOptions readerIdle = TransportOptions.builder().readerIdle(interval).build();
        assertEquals(interval, client().options(readerIdle).resolvedOptions().readerIdle(),
                "an explicit reader-idle in the options beats the builder's default heartbeat");
        assertEquals(interval, client().heartbeat(interval, Duration.ofSeconds(15)).options(UNRELATED)
                .resolvedOptions().readerIdle());
        assertEquals(interval, client().options(UNRELATED).heartbeat(interval, Duration.ofSeconds(15))
                .resolvedOptions().readerIdle());
        assertEquals(interval, client().heartbeat(interval, Duration.ofSeconds(15)).options(readerIdle)
                .resolvedOptions().readerIdle());
        assertEquals(Duration.ofSeconds(60), client().options(UNRELATED).resolvedOptions().readerIdle(), "default");
        assertEquals(Duration.ofSeconds(15), client().options(readerIdle).resolvedIdleTimeout(),
                "the default idle timeout is three heartbeats, as Dubbo's");
    }

    @Test
    void differentHeartbeatAndReaderIdleFailNamingBoth() {
        TransportOptions readerIdle = TransportOptions.builder().readerIdle(Duration.ofSeconds(5)).build();
        Duration other = Duration.ofSeconds(7);
        assertConflict(() -> client().heartbeat(other, Duration.ofSeconds(30)).options(readerIdle).build(),
                "heartbeat", "readerIdle", "PT7S", "PT5S");
        assertConflict(() -> client().options(readerIdle).heartbeat(other, Duration.ofSeconds(30)).build(),
                "heartbeat", "readerIdle", "PT7S", "PT5S");
    }

    @Test
    void clientStallTimeoutWhicheverKnobSetsIt() {
        TransportOptions off = TransportOptions.builder().stallTimeout(Duration.ZERO).build();
        assertEquals(Duration.ZERO, client().options(off).resolvedOptions().stallTimeout(),
                "an explicit zero in the options turns stall detection off over the client's 1 s default");
        Duration stall = Duration.ofMillis(300);
        assertEquals(stall, client().stallTimeout(stall).options(UNRELATED).resolvedOptions().stallTimeout());
        assertEquals(stall, client().options(UNRELATED).stallTimeout(stall).resolvedOptions().stallTimeout());
        assertEquals(SluiceClient.DEFAULT_STALL_TIMEOUT, client().options(UNRELATED).resolvedOptions().stallTimeout(),
                "the client's default beats the options' default");
    }

    @Test
    void differentStallTimeoutsFailNamingBoth() {
        TransportOptions off = TransportOptions.builder().stallTimeout(Duration.ZERO).build();
        Duration stall = Duration.ofMillis(300);
        assertConflict(() -> client().stallTimeout(stall).options(off).build(), "stallTimeout", "PT0.3S", "PT0S");
        assertConflict(() -> client().options(off).stallTimeout(stall).build(), "stallTimeout", "PT0.3S", "PT0S");
    }

    @Test
    void serverIdleTimeoutIsTheOptionsAllIdleWhicheverKnobSetsIt() {
        Duration idle = Duration.ofSeconds(5);
        TransportOptions allIdle = TransportOptions.builder().allIdle(idle).build();
        assertEquals(idle, server().options(allIdle).resolvedOptions().allIdle(),
                "an explicit all-idle in the options beats the builder's default idle timeout");
        assertEquals(idle, server().idleTimeout(idle).options(UNRELATED).resolvedOptions().allIdle());
        assertEquals(idle, server().options(UNRELATED).idleTimeout(idle).resolvedOptions().allIdle());
        assertEquals(Duration.ofSeconds(180), server().options(UNRELATED).resolvedOptions().allIdle(), "default");
    }

    @Test
    void differentIdleTimeoutAndAllIdleFailNamingBoth() {
        TransportOptions allIdle = TransportOptions.builder().allIdle(Duration.ofSeconds(5)).build();
        Duration other = Duration.ofSeconds(9);
        assertConflict(() -> server().idleTimeout(other).options(allIdle).start(), "idleTimeout", "allIdle", "PT9S",
                "PT5S");
        assertConflict(() -> server().options(allIdle).idleTimeout(other).start(), "idleTimeout", "allIdle", "PT9S",
                "PT5S");
    }

    private static void assertConflict(Runnable build, String... named) {
        IllegalStateException e = assertThrows(IllegalStateException.class, build::run);
        for (String s : named) {
            assertTrue(e.getMessage().contains(s), "message names " + s + ": " + e.getMessage());
        }
    }
}
