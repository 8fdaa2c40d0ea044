package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.model.Animal;
import dev.sluice.codec.dubbo.model.ProbeService;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An {@link Error} thrown while a frame is decoded on the event loop closes that connection and drops its bytes, and
 * the server goes on serving other connections. The Error is real: the server's only event loop runs on a thread
 * with a small stack, and a request whose argument nests lists within the decoder's depth limits overflows it while
 * it is parsed ({@code StackOverflowError}). Before the fix the frame stayed in the connection's buffer: no answer,
 * no close, every later read decoding the same frame again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DecoderErrorTest {
    /** Stack sizes tried for the server's event loop thread, smallest first (the JVM's least is 136 KiB). */
    private static final long MIN_STACK = 136 * 1024;
    private static final long MAX_STACK = 512 * 1024;
    private static final long STACK_STEP = 8 * 1024;
    /** Within the JSONB walker's depth limit (the request is fastjson2), so the frame is accepted and parsed. */
    private static final int NESTING = JsonbBounds.MAX_DEPTH - 8;

    private static final DubboMethod ECHO = DubboMethod.of(ProbeService.class.getName(), null, "echo",
            "Ljava/lang/Object;");

    /** Answers what it gets. */
    private static final class Echo implements ProbeService {
        @Override
        public Object echo(Object value) {
            return value;
        }

        @Override
        public Animal adopt(Animal animal) {
            return animal;
        }
    }

    @Test
    void stackOverflowWhileDecodingClosesThatConnectionPromptlyAndTheNextIsServed() throws Exception {
        Object nested = List.of();
        for (int i = 0; i < NESTING; i++) {
            nested = List.of(nested);
        }
        byte[] frame = Codecs.encode(DubboRequest.invocation(7, ECHO, new Object[] {nested}, Map.of()));
        // The smallest loop stack that serves ordinary calls depends on the JIT's state; the first one found is
        // small enough for the nested frame to overflow it.
        for (long stack = MIN_STACK; stack <= MAX_STACK; stack += STACK_STEP) {
            long size = stack;
            ThreadFactory small = r -> new Thread(null, r, "small-stack-loop", size);
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, small, NioIoHandler.newFactory());
            try (SluiceServer server = SluiceServer.builder().port(0)
                    .eventLoops(EventLoops.borrow(group, NativeTransport.NIO))
                    .register(ProbeService.class, new Echo()).start()) {
                if (!servesOrdinaryCalls(server)) {
                    continue; // too small even for those: the next size
                }
                try (Socket hostile = new Socket()) {
                    hostile.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
                    hostile.setSoTimeout(5_000);
                    hostile.getOutputStream().write(frame);
                    hostile.getOutputStream().flush();
                    long start = System.nanoTime();
                    InputStream in = hostile.getInputStream();
                    int first;
                    try {
                        first = in.read();
                    } catch (SocketTimeoutException e) {
                        throw new AssertionError("the connection whose frame threw an Error was neither answered nor"
                                + " closed within 5 s: it is wedged", e);
                    }
                    assertEquals(-1, first, "the connection was answered (byte " + first + "): the frame did not"
                            + " overflow a " + size / 1024 + " KiB stack that serves ordinary calls, so this test"
                            + " did not make its condition");
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertTrue(millis < 2_000, "closed only after " + millis + " ms");
                }
                // The same loop (its only one) serves the next connection.
                assertTrue(servesOrdinaryCalls(server), "the loop no longer serves after the Error");
                return;
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }
        throw new AssertionError("no loop stack between " + MIN_STACK / 1024 + " and " + MAX_STACK / 1024
                + " KiB served ordinary calls");
    }

    /** A call of each kind the test makes, on a connection of its own. */
    private static boolean servesOrdinaryCalls(SluiceServer server) {
        try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(5)).build()) {
            ProbeService probe = client.proxy(ProbeService.class);
            return "next".equals(probe.echo("next")) && List.of(List.of()).equals(probe.echo(List.of(List.of())));
        } catch (RuntimeException e) {
            return false;
        }
    }

}
