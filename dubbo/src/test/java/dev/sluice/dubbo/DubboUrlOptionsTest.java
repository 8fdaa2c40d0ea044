package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import java.time.Duration;
import org.apache.dubbo.common.URL;
import org.junit.jupiter.api.Test;

/** URL parameters Dubbo users set become the transport's typed options. */
class DubboUrlOptionsTest {
    private static URL url(String query) {
        return URL.valueOf("dubbo://10.0.0.1:20880/svc?codec=dubbo" + (query.isEmpty() ? "" : "&" + query));
    }

    @Test
    void defaultsFollowDubbo() {
        TransportOptions server = DubboUrlOptions.server(url(""));
        assertEquals(8 * 1024 * 1024, server.payloadLimit());
        assertEquals(Duration.ofMinutes(3), server.allIdle(), "close timeout = 3 x the 60 s heartbeat");
        assertEquals(Duration.ZERO, server.readerIdle());
        assertEquals(Duration.ofSeconds(3), server.connectTimeout());
        assertEquals(NativeTransport.NIO, server.nativeTransport());
        assertFalse(server.reconnect());

        TransportOptions client = DubboUrlOptions.client(url(""));
        assertEquals(Duration.ofMinutes(1), client.readerIdle(), "heartbeat after 60 s without reading");
        assertEquals(Duration.ZERO, client.allIdle());
        assertFalse(client.reconnect(), "only Dubbo's reconnect timer redials unless sluice.reconnect=true");
    }

    @Test
    void urlParametersAreHonoured() {
        TransportOptions server = DubboUrlOptions.server(url(
                "payload=65536&heartbeat=500&close.timeout=2000&iothreads=4&connect.timeout=1500&sluice.native=epoll"));
        assertEquals(65536, server.payloadLimit());
        assertEquals(Duration.ofMillis(2000), server.allIdle());
        assertEquals(4, server.ioThreads());
        assertEquals(Duration.ofMillis(1500), server.connectTimeout());
        assertEquals(NativeTransport.EPOLL, server.nativeTransport());

        TransportOptions client = DubboUrlOptions.client(url("heartbeat=500&reconnect=false&sluice.native=io-uring"));
        assertEquals(Duration.ofMillis(500), client.readerIdle());
        assertFalse(client.reconnect());
        assertEquals(NativeTransport.IO_URING, client.nativeTransport());
        assertTrue(DubboUrlOptions.client(url("reconnect=false&sluice.reconnect=true")).reconnect());
        assertTrue(DubboUrlOptions.client(url("sluice.reconnect=true")).reconnect());
        assertTrue(DubboUrlOptions.client(url("sluice.reconnect=fast")).reconnect());
        assertFalse(DubboUrlOptions.client(url("sluice.reconnect=dubbo")).reconnect());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DubboUrlOptions.client(url("sluice.reconnect=often")));
        assertTrue(e.getMessage().contains("sluice.reconnect=often"), e.getMessage());
        assertFalse(DubboUrlOptions.client(url("reconnect=true")).reconnect(), "Dubbo's key is for Dubbo's timer");
        assertEquals(Duration.ZERO, DubboUrlOptions.client(url("heartbeat=0")).readerIdle());
    }

    @Test
    void heartbeatTimeoutDrivesTheServerIdleClose() {
        assertEquals(Duration.ofMillis(4000),
                DubboUrlOptions.server(url("heartbeat=1000&heartbeat.timeout=4000")).allIdle());
    }

    @Test
    void badValuesFailWithTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DubboUrlOptions.server(url("sluice.native=kqueue")));
        assertTrue(e.getMessage().contains("sluice.native=kqueue"), e.getMessage());
        // Dubbo's own rule: the idle close must be at least two heartbeats.
        assertThrows(IllegalStateException.class, () ->
                DubboUrlOptions.server(url("heartbeat=1000&close.timeout=1500")));
    }

    @Test
    void pendingBytesCapIsTakenFromTheUrl() {
        long defaultCap = TransportOptions.defaults().pendingBytesCap();
        assertEquals(defaultCap, DubboUrlOptions.server(url("")).pendingBytesCap());
        assertEquals(2_097_152, DubboUrlOptions.server(url("sluice.pending-bytes=2097152")).pendingBytesCap());
        assertEquals(65_536, DubboUrlOptions.client(url("sluice.pending-bytes=65536")).pendingBytesCap());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DubboUrlOptions.server(url("sluice.pending-bytes=-1")));
        assertTrue(e.getMessage().contains("sluice.pending-bytes=-1"), e.getMessage());
    }

    @Test
    void stallTimeoutIsOptInAndInMilliseconds() {
        assertEquals(Duration.ZERO, DubboUrlOptions.client(url("")).stallTimeout(), "off unless asked for");
        assertEquals(Duration.ZERO, DubboUrlOptions.client(url("sluice.stall-timeout=0")).stallTimeout());
        assertEquals(Duration.ofMillis(300), DubboUrlOptions.client(url("sluice.stall-timeout=300")).stallTimeout());
        assertEquals(Duration.ZERO, DubboUrlOptions.server(url("sluice.stall-timeout=300")).stallTimeout(),
                "a client-side option");
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> DubboUrlOptions.client(url("sluice.stall-timeout=-5")));
        assertTrue(e.getMessage().contains("sluice.stall-timeout=-5"), e.getMessage());
    }

    @Test
    void hostNameCheckIsOptInInsideDubbo() {
        assertTrue(TransportOptions.defaults().verifyHostname(), "standalone clients check host names");
        assertFalse(DubboUrlOptions.client(url("")).verifyHostname(), "Dubbo's TLS client checks none");
        assertTrue(DubboUrlOptions.client(url("sluice.tls.verify-hostname=true")).verifyHostname());
        assertFalse(DubboUrlOptions.client(url("sluice.tls.verify-hostname=false")).verifyHostname());
    }

    @Test
    void hostilePeerKeysAreReadWithDefaultsAndClearErrors() {
        assertEquals(Duration.ofSeconds(30), DubboUrlOptions.frameTimeout(url("")));
        assertEquals(Duration.ofMillis(250), DubboUrlOptions.frameTimeout(url("sluice.frame-timeout=250")));
        assertEquals(Duration.ZERO, DubboUrlOptions.frameTimeout(url("sluice.frame-timeout=0")));
        assertEquals(1000, DubboUrlOptions.maxConnectionsPerAddress(url("")));
        assertEquals(3, DubboUrlOptions.maxConnectionsPerAddress(url("sluice.max-connections-per-address=3")));
        assertEquals(0, DubboUrlOptions.maxConnections(url("")), "Dubbo's accepts: no limit by default");
        assertEquals(7, DubboUrlOptions.maxConnections(url("accepts=7")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DubboUrlOptions.frameTimeout(url("sluice.frame-timeout=soon")));
        assertTrue(e.getMessage().contains("sluice.frame-timeout=soon"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> DubboUrlOptions.maxConnectionsPerAddress(url("sluice.max-connections-per-address=-1")));
        assertTrue(e.getMessage().contains("must be >= 0"), e.getMessage());
    }
}
