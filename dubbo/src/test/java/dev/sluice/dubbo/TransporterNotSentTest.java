package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.concurrent.EventExecutor;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.TimeoutException;
import org.apache.dubbo.remoting.exchange.ExchangeChannel;
import org.apache.dubbo.remoting.exchange.ExchangeClient;
import org.apache.dubbo.remoting.exchange.ExchangeServer;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Through Dubbo's own exchange layer with {@code client=sluice} and Dubbo's default {@code sent=false}: Dubbo's
 * {@code DefaultFuture} times a request out by itself. When that happens while the request is still in the
 * connection's write queue (here: every event loop of the consumer is blocked, as StandaloneFeaturesTest blocks the
 * standalone client's), Dubbo tells the caller "Sending request timeout in client-side", i.e. not sent, and a failover
 * cluster would retry it elsewhere. The request must then never be written: the provider must never run it
 * (docs/reliability.md D24e).
 */
@Timeout(60)
class TransporterNotSentTest {

    @Test
    void aRequestDubboTimedOutAsNotSentIsNeverWrittenAndTheProviderNeverRunsIt() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        List<Object> ran = Collections.synchronizedList(new ArrayList<>());
        // dispatcher=direct: the provider runs each request on its I/O thread in arrival order, so once "after" is
        // answered, a "stuck" that reached it would have run before.
        URL url = URL.valueOf("dubbo://127.0.0.1:" + port + "/notsent?server=sluice&client=sluice&codec=exchange"
                + "&serialization=fastjson2&heartbeat=0&dispatcher=direct");
        ExchangeServer server = Exchangers.bind(url, new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) {
            @Override
            public CompletableFuture<Object> reply(ExchangeChannel channel, Object request) throws RemotingException {
                ran.add(request);
                return CompletableFuture.completedFuture(request);
            }
        });
        ExchangeClient client = Exchangers.connect(url, new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) { });
        // The consumer's loops: the group its connection runs on, shared by every Sluice client of this kind.
        SharedClientLoops.Lease loops = SharedClientLoops.acquire(DubboUrlOptions.nativeTransport(url), 1);
        try {
            assertEquals("ok", client.request("ok", 5_000).get(5, TimeUnit.SECONDS));
            CountDownLatch release = new CountDownLatch(1);
            List<EventExecutor> executors = new ArrayList<>();
            loops.eventLoops().group().forEach(executors::add);
            CountDownLatch blocked = new CountDownLatch(executors.size());
            for (EventExecutor loop : executors) {
                loop.execute(() -> {
                    blocked.countDown();
                    try {
                        release.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertTrue(blocked.await(5, TimeUnit.SECONDS), "the consumer's event loops did not block");
            try {
                CompletableFuture<Object> stuck = client.request("stuck", 200);
                ExecutionException e = assertThrows(ExecutionException.class, () -> stuck.get(10, TimeUnit.SECONDS));
                TimeoutException timeout = assertInstanceOf(TimeoutException.class, e.getCause());
                assertTrue(timeout.getMessage().contains("Sending request timeout in client-side"),
                        "Dubbo did not report the request as not sent: " + timeout.getMessage());
            } finally {
                release.countDown();
            }
            // The loops drain their queues now. "Not sent" is a promise: the provider must never run "stuck".
            assertEquals("after", client.request("after", 5_000).get(5, TimeUnit.SECONDS));
            assertEquals(List.of("ok", "after"), new ArrayList<>(ran), "the provider ran only what was sent");
        } finally {
            loops.release();
            client.close();
            server.close();
        }
    }
}
