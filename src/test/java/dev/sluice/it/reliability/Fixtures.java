package dev.sluice.it.reliability;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

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
}
