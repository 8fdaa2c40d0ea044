package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSONB;
import com.alibaba.fastjson2.JSONWriter;
import dev.sluice.rpc.BlockingCallException;
import dev.sluice.rpc.CallbackRejectedException;
import dev.sluice.rpc.Invocation;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceInterceptor;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12 item 8: no SluiceClient call hangs. An asynchronous call completes even when its callback executor
 * rejects the completing task or reading its result throws an {@link Error}; a synchronous call made on an event
 * loop fails at once instead of blocking the loop until its timeout.
 */
@Timeout(60)
class ClientHangTest {
    /** Long enough that a call which merely waits out its timeout cannot pass for one that failed fast. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final long FAST_MILLIS = 3_000;

    private static SluiceServer server(NativeTransport kind) {
        return server(kind, new ArrayList<>());
    }

    /** A server that records, in {@code received}, every call it is asked to run ("blob[2]"). */
    private static SluiceServer server(NativeTransport kind, List<String> received) {
        SluiceInterceptor recorder = new SluiceInterceptor() {
            @Override
            public void onCall(Invocation invocation) {
                received.add(invocation.method() + Arrays.toString(invocation.arguments()));
            }
        };
        return SluiceServer.builder().port(0).options(Fixtures.on(kind).build()).intercept(recorder)
                .register(DropService.class, new DroppedResponseTest.DropServiceImpl()).start();
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void asyncCallWhoseCallbackExecutorRejectsCompletesWithATypedError(NativeTransport kind) throws Exception {
        ExecutorService shutDown = Executors.newSingleThreadExecutor();
        shutDown.shutdown();
        try (SluiceServer server = server(kind);
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port()).timeout(CALL_TIMEOUT)
                     .options(Fixtures.on(kind).build()).callbackExecutor(shutDown).failIfNotConnected(true).build()) {
            AtomicReference<String> thread = new AtomicReference<>();
            CompletableFuture<String> f = client.proxy(DropService.class).blobAsync(3)
                    .whenComplete((v, t) -> thread.set(Thread.currentThread().getName()));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> f.get(FAST_MILLIS, TimeUnit.MILLISECONDS));
            CallbackRejectedException rejected = assertInstanceOf(CallbackRejectedException.class, e.getCause());
            assertInstanceOf(RejectedExecutionException.class, rejected.getCause());
            assertTrue(rejected.getMessage().contains("DropService.blobAsync")
                    && rejected.getMessage().contains("provider answered"), rejected.getMessage());
            assertFalse(thread.get().startsWith("sluice-client"), "completed on the event loop: " + thread.get());
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void asyncResultWhoseReadThrowsAnErrorCompletesWithStatus90(NativeTransport kind) throws Exception {
        byte[] fragile;
        try (JSONWriter w = JSONWriter.ofJSONB()) {
            w.writeTypeName(DropService.Fragile.class.getName());
            w.startObject();
            w.writeName("name");
            w.writeString("from a provider where it initialises");
            w.endObject();
            fragile = w.getBytes();
        }
        byte[] value = fragile;
        try (ScriptedServer provider = ScriptedServer.start((c, request) -> c.send(request.item(3).equals("blobAsync")
                ? Wire.valueResponse(request.id(), JSONB.toBytes("b")) : Wire.valueResponse(request.id(), value)));
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", provider.port())
                     .options(Fixtures.on(kind).build()).timeout(CALL_TIMEOUT).failIfNotConnected(true).build()) {
            DropService s = client.proxy(DropService.class);
            for (int i = 0; i < 2; i++) { // ExceptionInInitializerError first, NoClassDefFoundError after
                CompletableFuture<DropService.Fragile> f = s.fragileAsync();
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> f.get(FAST_MILLIS, TimeUnit.MILLISECONDS));
                RpcException rpc = assertInstanceOf(RpcException.class, e.getCause());
                assertEquals(90, rpc.status(), rpc.getMessage());
                assertInstanceOf(LinkageError.class, rpc.getCause(), rpc.toString());
                assertTrue(rpc.getMessage().contains("DropService.fragileAsync"), rpc.getMessage());
            }
            assertEquals(0, client.pendingCalls());
            assertEquals("b", s.blobAsync(1).get(FAST_MILLIS, TimeUnit.MILLISECONDS), "the client keeps working");
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void syncCallOnTheClientsOwnEventLoopFailsAtOnceAndSendsNothing(NativeTransport kind) throws Exception {
        Fixtures.on(kind);
        EventLoops loops = EventLoops.create(kind, 1, "hang-test");
        List<String> received = Collections.synchronizedList(new ArrayList<>());
        try (SluiceServer server = server(kind, received);
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port()).timeout(CALL_TIMEOUT)
                     .eventLoops(loops).failIfNotConnected(true).build()) {
            DropService s = client.proxy(DropService.class);
            long start = System.nanoTime();
            CompletableFuture<String> onLoop = new CompletableFuture<>();
            loops.group().next().execute(() -> {
                try {
                    onLoop.complete(s.blob(7));
                } catch (Throwable t) {
                    onLoop.completeExceptionally(t);
                }
            });
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> onLoop.get(CALL_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            BlockingCallException blocking = assertInstanceOf(BlockingCallException.class, e.getCause());
            assertTrue(millis < FAST_MILLIS, "failed after " + millis + " ms");
            assertTrue(blocking.getMessage().startsWith("Not sent") && blocking.getMessage().contains("event loop"),
                    blocking.getMessage());
            assertEquals(0, client.pendingCalls());
            // Off the loop the same proxy works; on the loop the asynchronous form is the way.
            assertEquals("bb", s.blob(2));
            CompletableFuture<CompletableFuture<String>> async = new CompletableFuture<>();
            loops.group().next().execute(() -> async.complete(s.blobAsync(3)));
            assertEquals("bbb", async.get(FAST_MILLIS, TimeUnit.MILLISECONDS).get(FAST_MILLIS, TimeUnit.MILLISECONDS));
            // Both later calls went out on the same connection after the refused one and were run: the server's
            // record is complete up to them, and the refused call never reached it.
            assertEquals(List.of("blob[2]", "blobAsync[3]"), new ArrayList<>(received),
                    "the server's record of the calls it received");
        } // the client owns the loops it was given by EventLoops.create, and shuts them down on close
    }
}
