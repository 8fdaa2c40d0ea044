package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testing.LogLines;
import dev.sluice.transport.TransportOptions;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.InputStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md E25d: the per-address connection limit counts an IPv6 peer by its /64, so a host given a /64
 * cannot open the limit once per address it picks from it; IPv4 counts per address.
 */
@Timeout(60)
class PerAddressLimitTest {

    private static InetAddress ip(String text) throws IOException {
        return InetAddress.getByName(text);
    }

    @Test
    void theKeyIsTheIpv4AddressOrTheIpv6Slash64() throws Exception {
        assertEquals(ip("10.1.2.3"), NettyServerTransport.addressKey(ip("10.1.2.3")));
        assertNotEquals(NettyServerTransport.addressKey(ip("10.1.2.3")),
                NettyServerTransport.addressKey(ip("10.1.2.4")), "IPv4: one count per address");
        InetAddress key = NettyServerTransport.addressKey(ip("2001:db8:1:2:aaaa:bbbb:cccc:dddd"));
        assertEquals(ip("2001:db8:1:2::"), key, "the host bits are zeroed");
        assertEquals(key, NettyServerTransport.addressKey(ip("2001:db8:1:2::1")), "same /64, same key");
        assertNotEquals(key, NettyServerTransport.addressKey(ip("2001:db8:1:3::1")), "another /64");
        // An IPv4 peer on a dual-stack socket, as an IPv4-mapped IPv6 address: counted as that IPv4 address.
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 10, 1, 2, 3};
        assertEquals(ip("10.1.2.3"), NettyServerTransport.addressKey(
                Inet6Address.getByAddress(null, mapped, (NetworkInterface) null)));
        // Every host on a link shares fe80::/64, and ::1 is one host: these count per address.
        assertEquals(ip("fe80::1"), NettyServerTransport.addressKey(ip("fe80::1")));
        assertNotEquals(NettyServerTransport.addressKey(ip("fe80::1")), NettyServerTransport.addressKey(ip("fe80::2")));
        assertEquals(ip("::1"), NettyServerTransport.addressKey(ip("::1")));
    }

    /** A channel that says it was accepted from {@code remote}. */
    private static EmbeddedChannel from(InetAddress remote) {
        InetSocketAddress address = new InetSocketAddress(remote, 40_000);
        return new EmbeddedChannel() {
            @Override
            protected SocketAddress remoteAddress0() {
                return address;
            }
        };
    }

    /**
     * The server's own counting code, fed channels from addresses this machine cannot dial from: three addresses of
     * one /64 share the limit of 2, another /64 and IPv4 addresses have their own, and a close gives the place back.
     */
    @Test
    void connectionsFromOneIpv6Slash64ShareOneCount() throws Exception {
        NettyServerTransport.ConnectionLimits limits = new NettyServerTransport.ConnectionLimits(0, 2, "total",
                "per address");
        List<EmbeddedChannel> channels = new ArrayList<>();
        try {
            EmbeddedChannel first = from(ip("2001:db8:5:6::1"));
            channels.add(first);
            assertTrue(limits.admit(first));
            EmbeddedChannel second = from(ip("2001:db8:5:6:ffff:0:0:2"));
            channels.add(second);
            assertTrue(limits.admit(second));
            EmbeddedChannel third = from(ip("2001:db8:5:6:1234::3"));
            channels.add(third);
            assertFalse(limits.admit(third), "a third address of the same /64 is over its limit of 2");
            assertFalse(third.isOpen(), "refused: closed as accepted");
            assertEquals(1, limits.refused.get());

            EmbeddedChannel otherPrefix = from(ip("2001:db8:5:7::1"));
            channels.add(otherPrefix);
            assertTrue(limits.admit(otherPrefix), "another /64 has its own count");
            for (String v4 : new String[] {"192.0.2.1", "192.0.2.1", "192.0.2.2"}) {
                EmbeddedChannel ch = from(ip(v4));
                channels.add(ch);
                assertTrue(limits.admit(ch), v4);
            }
            EmbeddedChannel thirdV4 = from(ip("192.0.2.1"));
            channels.add(thirdV4);
            assertFalse(limits.admit(thirdV4), "IPv4: the limit per address");

            first.close().syncUninterruptibly();
            EmbeddedChannel again = from(ip("2001:db8:5:6::abcd"));
            channels.add(again);
            assertTrue(limits.admit(again), "a closed connection gives its place in the /64 back");
        } finally {
            for (EmbeddedChannel ch : channels) {
                ch.finishAndReleaseAll();
            }
        }
    }

    /** A standalone server's refusal tells its reader to raise {@code maxConnections}, the builder's setting. */
    @Test
    void aRefusalsLogLineNamesMaxConnections() throws Exception {
        InetAddress loopback = ip("127.0.0.1");
        try (NettyServerTransport server = NettyServerTransport.builder()
                .bindAddress(new InetSocketAddress(loopback, 0)).maxConnections(1, 0)
                .options(TransportOptions.builder().build()).codec(TestFrames.INSTANCE)
                .handler(new TransportTest.EchoHandler()).bind();
             Socket a = new Socket(loopback, server.localAddress().getPort());
             LogLines lines = LogLines.capture("Refused connection")) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.connections().size() < 1) { // accepted on its loop, not in this thread
                assertTrue(System.nanoTime() < deadline, "the first connection was admitted");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            try (Socket b = new Socket(loopback, server.localAddress().getPort())) {
                b.setSoTimeout(10_000);
                assertEquals(-1, readOrReset(b.getInputStream()), "the second connection is closed by the server");
            }
            assertEquals(1, lines.count(), "the refusal is logged: " + lines.lines());
            assertTrue(lines.lines().get(0).contains("Raise maxConnections if this load is expected"),
                    lines.lines().get(0));
        }
    }

    /**
     * Real connections over IPv6 loopback through a bound server: the accepted channels' addresses go through the
     * key, and the third connection from ::1 is closed as it is accepted.
     */
    @Test
    void realIpv6ConnectionsOverTheLimitAreRefused() throws Exception {
        InetAddress loopback = ip("::1");
        boolean available = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(i -> Collections.list(i.getInetAddresses()).stream()).anyMatch(loopback::equals);
        Assumptions.assumeTrue(available, "no IPv6 loopback on this machine");
        try (NettyServerTransport server = NettyServerTransport.builder()
                .bindAddress(new InetSocketAddress(loopback, 0)).maxConnections(0, 2)
                .options(TransportOptions.builder().build()).codec(TestFrames.INSTANCE)
                .handler(new TransportTest.EchoHandler()).bind();
             Socket a = new Socket(loopback, server.localAddress().getPort());
             Socket b = new Socket(loopback, server.localAddress().getPort())) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.connections().size() < 2) { // accepted on their loops, not in this thread
                assertTrue(System.nanoTime() < deadline, "the first two connections were admitted");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            Socket c = new Socket(loopback, server.localAddress().getPort());
            c.setSoTimeout(10_000);
            InputStream in = c.getInputStream();
            assertEquals(-1, readOrReset(in), "the third connection from ::1 is closed by the server");
            assertEquals(1, server.refusedConnections());
            assertEquals(2, server.connections().size());
            c.close();
        }
    }

    private static int readOrReset(InputStream in) {
        try {
            return in.read();
        } catch (IOException reset) {
            return -1;
        }
    }
}
