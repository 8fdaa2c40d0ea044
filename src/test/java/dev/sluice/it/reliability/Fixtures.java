package dev.sluice.it.reliability;

import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Assumptions;

/** Shared pieces of the reliability suite. */
final class Fixtures {
    private Fixtures() {
    }

    /** A plain client socket to the loopback port with a read timeout, so a missing answer fails the test. */
    static Socket socket(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(10_000);
        s.setTcpNoDelay(true);
        return s;
    }

    /** True once the peer closed: a read returns end of stream (or the connection was reset). */
    static boolean readsEndOfStream(InputStream in) {
        try {
            return in.read() == -1;
        } catch (IOException reset) {
            return true;
        }
    }

    /** A port nothing listens on right now. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Direct memory held by Netty: its own counter when it counts, else the pooled allocator's. */
    static long directMemory() {
        long used = PlatformDependent.usedDirectMemory();
        return used >= 0 ? used : PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    }

    /** Transport options on {@code kind}; skips the test on a machine that does not have it. */
    static TransportOptions.Builder on(NativeTransport kind) {
        Assumptions.assumeTrue(EventLoops.resolve(kind) == kind, kind + " is not available on this machine");
        return TransportOptions.builder().nativeTransport(kind);
    }
}
