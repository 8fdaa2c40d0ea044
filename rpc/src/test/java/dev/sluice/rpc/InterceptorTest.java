package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Client and server interceptors over real calls between a SluiceClient and a SluiceServer on loopback. */
@Timeout(60)
class InterceptorTest {
    public interface Greeter {
        String greet(String name);

        CompletableFuture<String> greetAsync(String name);

        void notify(String what);

        String header(String key);
    }

    static final class GreeterImpl implements Greeter {
        final CountDownLatch notified = new CountDownLatch(1);

        @Override
        public String greet(String name) {
            if ("boom".equals(name)) {
                throw new IllegalStateException("service says no");
            }
            return "hello " + name;
        }

        @Override
        public CompletableFuture<String> greetAsync(String name) {
            if ("boom".equals(name)) {
                return CompletableFuture.failedFuture(new IllegalStateException("async service says no"));
            }
            return CompletableFuture.completedFuture("hi " + name);
        }

        @Override
        public void notify(String what) {
            notified.countDown();
        }

        @Override
        public String header(String key) {
            Object v = SluiceContext.current().attachments().get(key);
            return v == null ? null : v.toString();
        }
    }

    /** Records what it sees, with the thread it saw it on, into a shared log. */
    static final class Recorder implements SluiceInterceptor {
        final String name;
        final List<String> log;
        final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        volatile boolean onEventLoop;

        Recorder(String name, List<String> log) {
            this.name = name;
            this.log = log;
        }

        @Override
        public void onCall(Invocation inv) {
            log.add(name + ".onCall " + inv.side() + " " + inv.method());
            threads.add(Thread.currentThread().getName());
            onEventLoop |= ThreadExecutorMap.currentExecutor() instanceof EventLoop;
        }

        @Override
        public void onComplete(Invocation inv, Outcome outcome) {
            log.add(name + ".onComplete " + inv.side() + " " + inv.method() + " " + outcome.kind());
            outcomes.add(outcome);
            threads.add(Thread.currentThread().getName());
            onEventLoop |= ThreadExecutorMap.currentExecutor() instanceof EventLoop;
        }
    }

    private static SluiceServer.Builder server(Greeter impl) {
        return SluiceServer.builder().port(0).register(Greeter.class, impl);
    }

    private static SluiceClient.Builder client(SluiceServer server) {
        return SluiceClient.builder().address("127.0.0.1", server.port()).timeout(Duration.ofSeconds(10))
                .failIfNotConnected(true);
    }

    @Test
    void interceptorsRunInOrderOnBothSidesAndSeeTheCall() {
        List<String> log = new CopyOnWriteArrayList<>();
        Recorder s1 = new Recorder("s1", log);
        Recorder s2 = new Recorder("s2", log);
        Recorder c1 = new Recorder("c1", log);
        Recorder c2 = new Recorder("c2", log);
        List<Invocation> seen = new CopyOnWriteArrayList<>();
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(Greeter.class, new GreeterImpl(), "1.2", "g1").intercept(s1, s2).start();
             SluiceClient client = client(server).intercept(c1).intercept(c2, new SluiceInterceptor() {
                 @Override
                 public void onCall(Invocation inv) {
                     seen.add(inv);
                 }
             }).build()) {
            Greeter g = client.reference(Greeter.class).version("1.2").group("g1").proxy();
            assertEquals("hello ann", g.greet("ann"));
        }
        assertEquals(List.of("c1.onCall CLIENT greet", "c2.onCall CLIENT greet",
                "s1.onCall SERVER greet", "s2.onCall SERVER greet",
                "s2.onComplete SERVER greet SUCCESS", "s1.onComplete SERVER greet SUCCESS",
                "c2.onComplete CLIENT greet SUCCESS", "c1.onComplete CLIENT greet SUCCESS"), log);
        Invocation inv = seen.get(0);
        assertEquals(Greeter.class.getName(), inv.service());
        assertEquals("1.2", inv.version());
        assertEquals("g1", inv.group());
        assertEquals("ann", inv.arguments()[0]);
        Outcome out = c1.outcomes.get(0);
        assertEquals("hello ann", out.value());
        assertEquals(20, out.status());
        assertTrue(out.durationNanos() > 0);
        assertEquals(out, c2.outcomes.get(0), "every interceptor sees the same outcome");
        assertEquals(Thread.currentThread().getName(), c1.threads.get(0), "client onCall on the calling thread");
        assertEquals(Thread.currentThread().getName(), c1.threads.get(1), "sync onComplete on the calling thread");
        assertTrue(s1.threads.get(0).startsWith("sluice-service-"), "server onCall ran on " + s1.threads.get(0));
        assertEquals(s1.threads.get(0), s1.threads.get(1));
    }

    @Test
    void attachmentsAddedByInterceptorsReachTheServiceOnTheServerSide() {
        SluiceInterceptor clientAdds = new SluiceInterceptor() {
            @Override
            public void onCall(Invocation inv) {
                inv.attachments().put("trace", "t-1");
            }
        };
        SluiceInterceptor serverAdds = new SluiceInterceptor() {
            @Override
            public void onCall(Invocation inv) {
                assertEquals("t-1", inv.attachments().get("trace"), "the server sees the client's attachment");
                inv.attachments().put("tenant", "acme");
            }
        };
        try (SluiceServer server = server(new GreeterImpl()).intercept(serverAdds).start();
             SluiceClient client = client(server).intercept(clientAdds).build()) {
            Greeter g = client.proxy(Greeter.class);
            SluiceContext.current().setAttachment("own", "o");
            assertEquals("o", g.header("own"), "the caller's own attachments still travel");
            assertEquals("t-1", g.header("trace"));
            assertEquals("acme", g.header("tenant"));
        }
    }

    @Test
    void serviceExceptionsAndAsyncOutcomesAreSeenBeforeTheCallerGetsThem() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        Recorder c = new Recorder("c", log);
        Recorder s = new Recorder("s", log);
        try (SluiceServer server = server(new GreeterImpl()).intercept(s).start();
             SluiceClient client = client(server).intercept(c).allowClasses(IllegalStateException.class.getName())
                     .build()) {
            Greeter g = client.proxy(Greeter.class);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> g.greet("boom"));
            assertEquals(Outcome.Kind.APPLICATION_EXCEPTION, c.outcomes.get(0).kind());
            assertEquals(e, c.outcomes.get(0).exception());
            assertEquals(Outcome.Kind.APPLICATION_EXCEPTION, s.outcomes.get(0).kind());

            CompletableFuture<String> ok = g.greetAsync("bo");
            assertEquals("hi bo", ok.get(10, TimeUnit.SECONDS));
            // The caller's future completes only after the interceptors saw the outcome.
            assertEquals(2, c.outcomes.size());
            assertEquals("hi bo", c.outcomes.get(1).value());
            assertFalse(c.onEventLoop, "an interceptor ran on an event loop");

            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> g.greetAsync("boom").get(10, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, failed.getCause());
            assertEquals(Outcome.Kind.APPLICATION_EXCEPTION, c.outcomes.get(2).kind());
            assertEquals(Outcome.Kind.APPLICATION_EXCEPTION, s.outcomes.get(2).kind(),
                    "a failed CompletionStage on the server is the service's exception");
        }
    }

    @Test
    void oneWayCallsAreInterceptedOnBothSides() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        CountDownLatch serverDone = new CountDownLatch(1);
        Recorder c = new Recorder("c", log);
        GreeterImpl impl = new GreeterImpl();
        try (SluiceServer server = server(impl).intercept(new SluiceInterceptor() {
            @Override
            public void onComplete(Invocation inv, Outcome outcome) {
                assertTrue(inv.isOneWay());
                serverDone.countDown();
            }
        }).start();
             SluiceClient client = client(server).intercept(c).build()) {
            Greeter g = client.reference(Greeter.class).oneWay("notify").proxy();
            g.notify("x");
            assertEquals(List.of("c.onCall CLIENT notify", "c.onComplete CLIENT notify SUCCESS"), log);
            assertTrue(serverDone.await(10, TimeUnit.SECONDS));
            assertTrue(impl.notified.await(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aClientInterceptorThatThrowsInOnCallFailsTheCallUnsentAndTheOthersStillComplete() {
        List<String> log = new CopyOnWriteArrayList<>();
        Recorder outer = new Recorder("outer", log);
        Recorder inner = new Recorder("inner", log);
        SluiceInterceptor thrower = new SluiceInterceptor() {
            @Override
            public void onCall(Invocation inv) {
                if ("deny".equals(inv.arguments()[0])) {
                    throw new SecurityException("not allowed");
                }
            }
        };
        Recorder server = new Recorder("server", log);
        try (SluiceServer srv = server(new GreeterImpl()).intercept(server).start();
             SluiceClient client = client(srv).intercept(outer, thrower, inner).build()) {
            Greeter g = client.proxy(Greeter.class);
            InterceptorException e = assertThrows(InterceptorException.class, () -> g.greet("deny"));
            assertTrue(e.getMessage().startsWith("Not sent: interceptor "), e.getMessage());
            assertTrue(e.getMessage().contains("not allowed"), e.getMessage());
            assertInstanceOf(SecurityException.class, e.getCause());
            assertEquals(List.of("outer.onCall CLIENT greet", "outer.onComplete CLIENT greet FAILURE"), log,
                    "the inner interceptor never saw the call, the outer one saw it fail, the server never saw it");
            assertEquals(0, client.pendingCalls(), "nothing left waiting");
            log.clear();
            assertEquals("hello ok", g.greet("ok"), "the client still works after an interceptor failure");
            assertEquals(6, log.size(), "outer, inner and the server saw the next call: " + log);
        }
    }

    @Test
    void aServerInterceptorThatThrowsFailsTheCallWithItsNameAndTheServiceIsNotRun() throws Exception {
        GreeterImpl impl = new GreeterImpl();
        SluiceInterceptor thrower = new SluiceInterceptor() {
            @Override
            public void onCall(Invocation inv) {
                throw new SecurityException("no token");
            }
        };
        try (SluiceServer server = server(impl).intercept(thrower).start();
             SluiceClient client = client(server).build()) {
            Greeter g = client.reference(Greeter.class).oneWay("notify").proxy();
            RpcException e = assertThrows(RpcException.class, () -> g.greet("ann"));
            assertEquals(70, e.status());
            assertTrue(e.getMessage().contains("Not invoked: interceptor") && e.getMessage().contains("no token"),
                    e.getMessage());
            g.notify("x");
            assertFalse(impl.notified.await(200, TimeUnit.MILLISECONDS), "a denied one-way call is not run");
        }
    }

    @Test
    void anInterceptorThatThrowsInOnCompleteFailsTheCallAfterEveryInterceptorSawTheOutcome() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        Recorder outer = new Recorder("outer", log);
        SluiceInterceptor thrower = new SluiceInterceptor() {
            @Override
            public void onComplete(Invocation inv, Outcome outcome) {
                throw new IllegalArgumentException("bad outcome");
            }
        };
        try (SluiceServer server = server(new GreeterImpl()).start();
             SluiceClient client = client(server).intercept(outer, thrower).build()) {
            Greeter g = client.proxy(Greeter.class);
            InterceptorException sync = assertThrows(InterceptorException.class, () -> g.greet("ann"));
            assertTrue(sync.getMessage().contains("onComplete") && sync.getMessage().contains("bad outcome"),
                    sync.getMessage());
            ExecutionException async = assertThrows(ExecutionException.class,
                    () -> g.greetAsync("ann").get(10, TimeUnit.SECONDS));
            assertInstanceOf(InterceptorException.class, async.getCause());
            assertEquals(2, outer.outcomes.size(), "the outer interceptor saw both outcomes");
            assertEquals(Outcome.Kind.SUCCESS, outer.outcomes.get(1).kind());
            assertEquals(0, client.pendingCalls());
        }
    }

    @Test
    void timeoutsAreTimeoutOutcomes() {
        List<String> log = new CopyOnWriteArrayList<>();
        Recorder c = new Recorder("c", log);
        CountDownLatch release = new CountDownLatch(1);
        SluiceInterceptor slowServer = new SluiceInterceptor() {
            @Override
            public void onCall(Invocation inv) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        try (SluiceServer server = server(new GreeterImpl()).intercept(slowServer).start();
             SluiceClient client = client(server).intercept(c).timeout(Duration.ofMillis(200)).build()) {
            Greeter g = client.proxy(Greeter.class);
            assertThrows(RpcTimeoutException.class, () -> g.greet("ann"));
            release.countDown();
            assertEquals(Outcome.Kind.TIMEOUT, c.outcomes.get(0).kind());
            assertNull(c.outcomes.get(0).value());
        }
    }
}
