package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import java.io.File;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md F28: the core of the suite - concurrent calls, a server that closes mid-call, wrong magic - on
 * NIO, epoll and io_uring (each where this machine has it), and the fallback to NIO when the native libraries are
 * missing (a child JVM with {@code -Dio.netty.transport.noNative=true}).
 */
@Timeout(90)
class TransportMatrixTest {

    private static TransportOptions on(NativeTransport kind) {
        Assumptions.assumeTrue(EventLoops.resolve(kind) == kind, kind + " is not available on this machine");
        return TransportOptions.builder().nativeTransport(kind).build();
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL", "IO_URING"})
    void concurrentCallsServerCloseAndWrongMagic(NativeTransport kind) throws Exception {
        TransportOptions options = on(kind);
        ExecutorService callers = Executors.newFixedThreadPool(16);
        try (SluiceServer server = SluiceServer.builder().port(0).options(options)
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port()).options(options)
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build()) {
            TypesService s = client.proxy(TypesService.class);
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int thread = t;
                fs.add(callers.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        String v = thread + ":" + i;
                        assertEquals(v, s.echo(v));
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
            try (Socket raw = Fixtures.socket(server.port())) {
                raw.getOutputStream().write("not dubbo".getBytes(StandardCharsets.US_ASCII));
                assertTrue(Fixtures.readsEndOfStream(raw.getInputStream()), "wrong magic closes the connection");
            }
            assertEquals("still", s.echo("still"));
        } finally {
            callers.shutdownNow();
        }
        try (ScriptedServer closer = ScriptedServer.start(0, kind, (c, request) -> c.close());
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", closer.port()).options(options
                     .toBuilder().reconnect(false).build()).timeout(Duration.ofSeconds(30)).failIfNotConnected(true)
                     .build()) {
            long start = System.nanoTime();
            CompletableFuture<String> call = client.proxy(TypesService.class).async("x", 0);
            ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionClosedException.class, e.getCause());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "failed at once");
        }
    }

    @Test
    void withoutNativeLibrariesEpollAndIoUringFallBackToNio(@TempDir Path dir) throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path out = dir.resolve("child.out");
        Process child = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dio.netty.transport.noNative=true", "-Dio.netty.leakDetection.level=paranoid", "-cp", cp,
                NativeFallbackMain.class.getName())
                .redirectErrorStream(true).redirectOutput(out.toFile()).redirectInput(new File("/dev/null")).start();
        try {
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child JVM finished");
        } finally {
            child.destroyForcibly();
        }
        String output = Files.readString(out);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("FALLBACK epoll->NIO io_uring->NIO echo=works"), output);
    }
}
