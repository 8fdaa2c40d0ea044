package dev.sluice.it.dubbo;

import dev.sluice.it.harness.CallLoad;
import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.exchange.support.header.HeartbeatHandler;

/**
 * Child-JVM scenario (run by {@link DubboTransporterInteropTest}): a real Dubbo 3.3.6 provider with
 * {@code server=<server>} and a real consumer with {@code client=<client>} in this JVM, each in its own
 * {@code FrameworkModel}, talking over TCP to {@link Scenario#testAddress()}. Runs the requested steps in order and
 * prints one {@code RESULT} line per step.
 *
 * <p>Args: {@code server client callsPerThread step,step,...}; {@code server} and {@code client} are Transporter names
 * ({@code sluice}, {@code netty4}), or for the client {@value #CLIENT_BY_PROPERTY} to select {@code sluice} with the
 * system property {@code dubbo.consumer.client=sluice} instead of on the reference. Steps:
 * <ul>
 *   <li>{@code load}: the four dubbo-benchmark {@code UserService} methods from 32 threads, every answer checked;</li>
 *   <li>{@code payload}: with {@code payload=65536} on both sides, an oversized request fails at the caller with
 *       both sizes, an oversized response fails fast (status 25, not the 5 s timeout), and the connection still
 *       works;</li>
 *   <li>{@code client-limit}: a consumer with a dedicated connection and {@code payload=16384} receives a 30 KB
 *       response: it fails fast (status 90) and the next call on that connection works (the body was skipped);</li>
 *   <li>{@code heartbeat}: on a provider and consumer of its own with {@code heartbeat=1000} (the server closes a
 *       connection idle for 3 s), an idle connection stays up for 4 s while the provider keeps reading
 *       heartbeats;</li>
 *   <li>{@code shutdown}: calls held on the provider while it shuts down all complete once the consumer has seen the
 *       readonly event;</li>
 *   <li>{@code restart}: with the provider gone a call fails fast; after a new provider binds the same port the
 *       consumer recovers by itself.</li>
 * </ul>
 * {@code restart} must follow {@code shutdown} (it restarts the stopped provider).
 */
public final class DubboTransportScenario {
    private static final int THREADS = 32;
    private static final int PAYLOAD = 65536;
    /** Client heartbeat period (reader idle) in the heartbeat step; the server closes after 3 × this idle. */
    private static final int HEARTBEAT_MS = 1000;
    private static final int TIMEOUT_MS = 5000;

    /** Client argument: select the sluice client with the system property {@code dubbo.consumer.client=sluice}. */
    static final String CLIENT_BY_PROPERTY = "sluice-by-property";

    private DubboTransportScenario() {}

    public static void main(String[] args) {
        Scenario.run(() -> {
            String server = args[0];
            String client = args[1];
            if (client.equals(CLIENT_BY_PROPERTY)) {
                // The README's switch for consumers: no client on the reference, Dubbo's consumer default instead.
                System.setProperty("dubbo.consumer.client", "sluice");
            }
            int callsPerThread = Integer.parseInt(args[2]);
            List<String> steps = Arrays.asList(args[3].split(","));
            DubboPeers.quietDefaults();
            new DubboTransportScenario.Run(server, client, callsPerThread, steps).run();
        });
    }

    private static final class Run {
        private final String server;
        private final String client;
        private final int callsPerThread;
        private final List<String> steps;
        private final String host = Scenario.testAddress();
        private final int port = DubboPeers.freePort();
        private DubboNodes.Provider provider;
        private DubboNodes.Consumer consumer;

        Run(String server, String client, int callsPerThread, List<String> steps) {
            this.server = server;
            this.client = client;
            this.callsPerThread = callsPerThread;
            this.steps = steps;
        }

        void run() throws Exception {
            long t0 = System.nanoTime();
            provider = DubboNodes.Provider.start(server, port, providerParams());
            consumer = DubboNodes.Consumer.start(client, host, port, TIMEOUT_MS, consumerParams(), false);
            check(consumer.users.existUser("x9"), "first call returned false");
            // Which transports really carry the calls: their event-loop threads are running.
            check(threadRuns(server.equals("sluice") ? "sluice-server" : "NettyServerWorker"),
                    "no event-loop thread of the " + server + " server is running");
            check(threadRuns(client.startsWith("sluice") ? "sluice-dubbo-client" : "NettyClientWorker"),
                    "no event-loop thread of the " + client + " client is running");
            Scenario.ok("start", "ms", millisSince(t0), "server", server, "client", client, "port", port);
            try {
                for (String step : steps) {
                    long start = System.nanoTime();
                    switch (step) {
                        case "load":
                            load();
                            break;
                        case "payload":
                            payload();
                            break;
                        case "client-limit":
                            clientLimit();
                            break;
                        case "heartbeat":
                            heartbeat();
                            break;
                        case "shutdown":
                            shutdownWithCallsInFlight();
                            break;
                        case "restart":
                            restart();
                            break;
                        default:
                            throw new IllegalArgumentException("unknown step " + step);
                    }
                    System.out.println("step " + step + " took " + millisSince(start) + " ms");
                }
            } finally {
                long t1 = System.nanoTime();
                consumer.stop();
                if (provider != null) {
                    provider.stop();
                }
                Scenario.ok("stop", "ms", millisSince(t1));
            }
        }

        private Map<String, String> providerParams() {
            Map<String, String> p = new HashMap<>();
            p.put("payload", Integer.toString(PAYLOAD));
            return p;
        }

        private Map<String, String> consumerParams() {
            Map<String, String> p = new HashMap<>();
            p.put("payload", Integer.toString(PAYLOAD));
            return p;
        }

        /** The four dubbo-benchmark methods from 32 threads; every answer is checked. */
        private void load() throws Exception {
            CallLoad.Result load = CallLoad.run(THREADS, callsPerThread, index -> oneCall(consumer.users, index));
            if (load.errors() > 0) {
                Scenario.fail("load", load.failureSummary());
                return;
            }
            Scenario.ok("load", "count", load.count(), "errors", 0, "threads", THREADS,
                    "p50us", load.p50Micros(),
                    "p99us", load.p99Micros(),
                    "wallms", load.wallMillis());
        }

        /** Returns null when the answer is right, else what was wrong. */
        private static String oneCall(UserService users, int index) {
            switch (index % 4) {
                case 0: {
                    String email = "user" + index;
                    boolean expected = email.charAt(email.length() - 1) >= '5';
                    boolean answer = users.existUser(email);
                    return answer == expected ? null : "existUser(" + email + ") returned " + answer;
                }
                case 1: {
                    User user = new UserServiceServerImpl().getUser(index);
                    return users.createUser(user) ? null : "createUser returned false";
                }
                case 2: {
                    User u = users.getUser(index);
                    if (u == null || u.getId() != index || !"Doug Lea".equals(u.getName())
                            || !LocalDate.of(1968, 12, 8).equals(u.getBirthday())
                            || u.getPermissions() == null || u.getPermissions().size() != 15) {
                        return "getUser(" + index + ") returned " + describe(u);
                    }
                    return null;
                }
                default: {
                    Page<User> page = users.listUser(index);
                    if (page == null || page.getPageNo() != index || page.getTotal() != 1000
                            || page.getResult() == null || page.getResult().size() != 15) {
                        return "listUser(" + index + ") returned a wrong page";
                    }
                    Object first = page.getResult().get(0);
                    if (!(first instanceof User) || !"Doug Lea0".equals(((User) first).getName())) {
                        return "listUser(" + index + ") item 0 is " + first;
                    }
                    return null;
                }
            }
        }

        private static String describe(User u) {
            return u == null ? "null" : "User{id=" + u.getId() + ", name=" + u.getName() + ", birthday="
                    + u.getBirthday() + ", permissions=" + u.getPermissions() + "}";
        }

        /** Oversized request fails at the caller with the sizes; oversized response fails fast; connection OK. */
        private void payload() {
            String big = "y".repeat(80_000);
            long t0 = System.nanoTime();
            RuntimeException request = expectFailure(() -> consumer.bulk.size(big));
            long requestMs = millisSince(t0);
            String requestMessage = fullMessage(request);
            check(requestMessage.contains("Data length too large") && requestMessage.contains("max payload: " + PAYLOAD),
                    "oversized request: message names no sizes: " + requestMessage);
            check(requestMs < 2000, "oversized request took " + requestMs + " ms to fail");
            check(provider.bulk.entered() == 0, "provider saw a call it should not have");

            long t1 = System.nanoTime();
            RuntimeException response = expectFailure(() -> consumer.bulk.blob(100_000));
            long responseMs = millisSince(t1);
            String responseMessage = fullMessage(response);
            check(responseMessage.contains("Data length too large") && responseMessage.contains(
                    "max payload: " + PAYLOAD), "oversized response: unexpected failure: " + responseMessage);
            check(responseMs < TIMEOUT_MS / 2, "oversized response took " + responseMs + " ms to fail (timeout?)");

            check(consumer.bulk.blob(1000).length() == 1000, "call after the oversized ones failed");
            check(consumer.bulk.size("z".repeat(60_000)) == 60_000, "a request just under the limit failed");
            Scenario.ok("payload", "requestFailMs", requestMs, "responseFailMs", responseMs);
        }

        /** A consumer whose own limit is below the response: fails fast, and its connection keeps working. */
        private void clientLimit() {
            Map<String, String> params = consumerParams();
            params.put("payload", "16384");
            DubboNodes.Consumer small = DubboNodes.Consumer.start(client, host, port, TIMEOUT_MS, params, true);
            try {
                long t0 = System.nanoTime();
                RuntimeException failure = expectFailure(() -> small.bulk.blob(30_000));
                long failMs = millisSince(t0);
                String message = fullMessage(failure);
                check(message.contains("16384"), "oversized response on a small client: " + message);
                check(failMs < TIMEOUT_MS / 2, "oversized response took " + failMs + " ms to fail (timeout?)");
                check(small.bulk.blob(100).length() == 100, "call after the skipped response failed");
                check(small.bulk.blob(16_000).length() == 16_000, "call just under the client limit failed");
                Scenario.ok("client-limit", "failMs", failMs);
            } finally {
                small.stop();
            }
        }

        /**
         * heartbeat=1 s, so the server closes a connection idle for 3 s: an idle connection survives 4 s on
         * heartbeats alone. Runs on a provider and consumer of its own, started now that the JVM is warm: a JVM still
         * starting up on a loaded machine can stall for seconds, which such short timers would not forgive.
         */
        private void heartbeat() {
            int hbPort = DubboPeers.freePort();
            Map<String, String> params = new HashMap<>();
            params.put("heartbeat", Integer.toString(HEARTBEAT_MS));
            DubboNodes.Provider hbProvider = DubboNodes.Provider.start(server, hbPort, params);
            DubboNodes.Consumer hbConsumer = null;
            try {
                hbConsumer = DubboNodes.Consumer.start(client, host, hbPort, TIMEOUT_MS, params, false);
                idleConnectionSurvives(hbProvider, hbConsumer);
            } finally {
                if (hbConsumer != null) {
                    hbConsumer.stop();
                }
                hbProvider.stop();
            }
        }

        private void idleConnectionSurvives(DubboNodes.Provider provider, DubboNodes.Consumer consumer) {
            check(consumer.users.existUser("x7"), "call before the idle period failed");
            List<Channel> before = provider.channels();
            check(before.size() == 1, "provider holds " + before.size() + " connections, expected 1: " + before);
            Channel channel = before.get(0);
            String remote = String.valueOf(channel.getRemoteAddress());
            long idleStart = System.nanoTime();
            long idleMillis = 4L * HEARTBEAT_MS;
            Set<Object> readTimestamps = new java.util.HashSet<>();
            while (millisSince(idleStart) < idleMillis) {
                Object read = channel.getAttribute(HeartbeatHandler.KEY_READ_TIMESTAMP);
                if (read != null) {
                    readTimestamps.add(read);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            List<Channel> after = provider.channels();
            check(after.size() == 1 && remote.equals(String.valueOf(after.get(0).getRemoteAddress()))
                    && channel.isConnected(), "connection " + remote + " did not survive " + idleMillis
                    + " ms idle: now " + after);
            // The first timestamp is the last call's; each further one is a heartbeat the provider read.
            int heartbeats = readTimestamps.size() - 1;
            check(heartbeats >= 3, "provider read " + heartbeats + " heartbeats in " + idleMillis + " ms, expected"
                    + " about " + (idleMillis / HEARTBEAT_MS));
            check(consumer.users.existUser("x8"), "call after the idle period failed");
            Scenario.ok("heartbeat", "heartbeats", heartbeats, "idleMs", idleMillis, "remote", remote);
        }

        /** Calls held on the provider while it shuts down complete once the consumer saw the readonly event. */
        private void shutdownWithCallsInFlight() throws Exception {
            int calls = 8;
            ExecutorService callers = Executors.newFixedThreadPool(calls);
            ExecutorService stopper = Executors.newSingleThreadExecutor();
            try {
                List<Future<Integer>> results = new ArrayList<>();
                for (int i = 0; i < calls; i++) {
                    int ticket = i;
                    results.add(callers.submit(() -> consumer.bulk.hold(ticket)));
                }
                awaitTrue("all held calls to reach the provider", 5000, () -> provider.bulk.entered() == calls);
                long t0 = System.nanoTime();
                DubboNodes.Provider stopping = provider;
                Future<?> stopped = stopper.submit(stopping::stop);
                awaitTrue("the consumer to see the provider go readonly", 5000, () -> !consumer.available());
                long readonlyMs = millisSince(t0);
                stopping.bulk.open();
                List<Integer> answers = new ArrayList<>();
                for (Future<Integer> f : results) {
                    answers.add(f.get(10, TimeUnit.SECONDS));
                }
                stopped.get(20, TimeUnit.SECONDS);
                provider = null;
                for (int i = 0; i < calls; i++) {
                    check(answers.get(i) == i, "held call " + i + " returned " + answers.get(i));
                }
                Scenario.ok("shutdown", "inFlight", calls, "completed", answers.size(), "readonlyMs", readonlyMs,
                        "stopMs", millisSince(t0));
            } finally {
                callers.shutdownNow();
                stopper.shutdownNow();
            }
        }

        /** No provider: calls fail fast. New provider on the same port: the consumer recovers by itself. */
        private void restart() {
            check(provider == null, "restart needs the shutdown step first");
            long t0 = System.nanoTime();
            expectFailure(() -> consumer.users.existUser("x9"));
            long failMs = millisSince(t0);
            check(failMs < TIMEOUT_MS / 2, "call with no provider took " + failMs + " ms to fail");

            provider = DubboNodes.Provider.start(server, port, providerParams());
            long t1 = System.nanoTime();
            AtomicReference<String> last = new AtomicReference<>();
            awaitTrue("the consumer to reconnect (last failure: " + last + ")", 20_000, 100, () -> {
                try {
                    return consumer.users.existUser("x9");
                } catch (RuntimeException e) {
                    last.set(e.toString());
                    return false;
                }
            });
            long recoverMs = millisSince(t1);
            for (int i = 0; i < 4; i++) {
                String problem = oneCall(consumer.users, 1000 + i);
                check(problem == null, "after reconnect: " + problem);
            }
            Scenario.ok("restart", "failMs", failMs, "recoverMs", recoverMs);
        }

        private static boolean threadRuns(String namePrefix) {
            return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith(namePrefix));
        }

        private static RuntimeException expectFailure(Runnable call) {
            try {
                call.run();
            } catch (RuntimeException e) {
                return e;
            }
            throw new AssertionError("call succeeded but should have failed");
        }

        private static String fullMessage(Throwable t) {
            StringBuilder sb = new StringBuilder();
            for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
                sb.append(c).append(" | ");
            }
            return sb.toString();
        }

        private static void check(boolean condition, String message) {
            if (!condition) {
                throw new AssertionError(message);
            }
        }

        private static void awaitTrue(String what, long maxMillis, BooleanSupplier condition) {
            awaitTrue(what, maxMillis, 10, condition);
        }

        /** Polls {@code condition} every {@code pollMillis} until it holds; fails after {@code maxMillis}. */
        private static void awaitTrue(String what, long maxMillis, long pollMillis, BooleanSupplier condition) {
            long start = System.nanoTime();
            while (!condition.getAsBoolean()) {
                if (millisSince(start) > maxMillis) {
                    throw new AssertionError("timed out after " + maxMillis + " ms waiting for " + what);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pollMillis));
            }
        }

        private static long millisSince(long startNanos) {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        }
    }
}
