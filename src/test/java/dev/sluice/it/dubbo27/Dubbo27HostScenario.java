package dev.sluice.it.dubbo27;

import dev.sluice.codec.dubbo.gadget.StaticInitGadget;
import dev.sluice.codec.dubbo.model.GenericTarget;
import dev.sluice.codec.dubbo.model.GenericTargetImpl;
import dev.sluice.it.generic.GenericCases;
import dev.sluice.it.harness.PeerProcess;
import dev.sluice.it.harness.Scenario;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.TypesServiceImpl;
import dev.sluice.rpc.Serialization;
import dev.sluice.rpc.SluiceServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * The child JVM of {@link Dubbo27ConsumerInteropTest}, in the harness's private network namespace, on the test
 * classpath (Sluice, Netty 4.2): runs the {@link SluiceServer}s and starts the Dubbo 2.7.23 consumer
 * ({@link Dubbo27ConsumerScenario}) as its own child JVM on the Dubbo 2.7 classpath. That JVM inherits this
 * namespace, so the consumer reaches the servers on {@link Scenario#testAddress()}; the two JVMs keep Netty 4.1 and
 * 4.2 apart.
 *
 * <p>Servers: the main one answers only hessian2 (so every answer the consumer checks was to a hessian2 request) with
 * TypesService unversioned, 1.0, and 2.0 in group {@code a}, dubbo-benchmark's UserService, and GenericTarget (the
 * target of the consumer's generic calls) unversioned and 2.0 in group {@code g}; the closing one, at Sluice's
 * defaults (hessian2 and fastjson2), is closed gracefully while four calls are in flight, when the consumer
 * asks for it. Its readonly event must reach the 2.7 consumer in hessian2, the serialization that connection used.
 * A fifth call, one-way ({@code fire("hold")}), is held until the consumer has read the four answers: the server closes
 * the connection as soon as its last call has finished, and Dubbo 2.7.23 fails a call whose response it has read but
 * not yet handed to the waiting thread when the connection closes ({@code DefaultFuture.closeChannel}: "Channel ... is
 * inactive. Directly return the unFinished request", then "The timeout response finally returned ... status is 20"),
 * which made the check flaky without it. Dubbo's own provider does not meet this: it keeps connections open for the
 * whole close timeout while clients stay connected.
 *
 * <p>The consumer's {@code RESULT} lines are relayed with the prefix {@value Dubbo27Checks#CONSUMER}, its
 * {@code LEAK:} lines as they are, everything else it prints with {@code [dubbo27] }; its stderr goes to
 * {@code dubbo27-consumer-stderr.log} in this run's directory. Args: {@code consumerClasspath}. Runs on its main
 * thread.
 */
public final class Dubbo27HostScenario {
    /** Below the test's child timeout, so a hung consumer is reported as such rather than killed with us. */
    private static final long CONSUMER_LIMIT_SECONDS = 80;

    private Dubbo27HostScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            String consumerClasspath = args[0];
            long t0 = System.nanoTime();
            TypesServiceImpl types = SluiceAttachments.service();
            CountDownLatch hold = new CountDownLatch(1);
            TypesServiceImpl gated = new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
                @Override
                public void fire(String tag) {
                    if (Dubbo27Checks.HOLD.equals(tag)) {
                        try {
                            hold.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            };
            gated.gate = new CountDownLatch(1);
            SluiceServer server = SluiceServer.builder().port(0)
                    .serializations(Serialization.HESSIAN2)
                    .register(TypesService.class, types)
                    .register(TypesService.class, prefixed("v1:"), "1.0", null)
                    .register(TypesService.class, prefixed("v2a:"), "2.0", "a")
                    .register(org.apache.dubbo.benchmark.service.UserService.class, new UserServiceServerImpl())
                    .register(GenericTarget.class, new GenericTargetImpl(""))
                    .register(GenericTarget.class, new GenericTargetImpl("v2/g "), "2.0", "g")
                    .allowClasses(GenericTarget.Circle.class.getName())
                    .start();
            SluiceServer closing = SluiceServer.builder().port(0).register(TypesService.class, gated).start();
            Scenario.ok(Dubbo27Checks.HOST_START, "port", server.port(), "closingPort", closing.port(),
                    "host", Scenario.testAddress(), "network", Scenario.network());

            CompletableFuture<Void> closed = null;
            ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "dubbo27-consumer-watchdog");
                t.setDaemon(true);
                return t;
            });
            Process consumer = start(consumerClasspath, server.port(), closing.port());
            watchdog.schedule(() -> {
                if (consumer.isAlive()) {
                    System.err.println("Dubbo 2.7 consumer still running after " + CONSUMER_LIMIT_SECONDS
                            + " s; killing it");
                    consumer.destroyForcibly();
                }
            }, CONSUMER_LIMIT_SECONDS, TimeUnit.SECONDS);
            try (BufferedReader out = new BufferedReader(new InputStreamReader(consumer.getInputStream(),
                    StandardCharsets.UTF_8));
                    Writer in = new OutputStreamWriter(consumer.getOutputStream(), StandardCharsets.UTF_8)) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith(Dubbo27Checks.CONTROL)) {
                        String command = line.substring(Dubbo27Checks.CONTROL.length()).trim();
                        String reply;
                        if (Dubbo27Checks.CONTROL_CLOSE.equals(command)) {
                            reply = awaitInFlight(closing, 5); // four slow calls and the held one-way call
                            if (reply == null) {
                                closed = closing.close(Duration.ofSeconds(10));
                                reply = Dubbo27Checks.REPLY_CLOSING;
                            }
                        } else if (Dubbo27Checks.CONTROL_RELEASE.equals(command)) {
                            gated.gate.countDown();
                            reply = Dubbo27Checks.REPLY_RELEASED;
                        } else if (Dubbo27Checks.CONTROL_RELEASE_LAST.equals(command)) {
                            hold.countDown();
                            reply = Dubbo27Checks.REPLY_RELEASED;
                        } else {
                            reply = "unknown command " + command;
                        }
                        in.write(reply + "\n");
                        in.flush();
                    } else {
                        PeerProcess.relay(Dubbo27Checks.CONSUMER, "dubbo27", line);
                    }
                }
            } finally {
                gated.gate.countDown();
                hold.countDown();
                if (!consumer.waitFor(20, TimeUnit.SECONDS)) {
                    consumer.destroyForcibly();
                }
                watchdog.shutdownNow();
            }
            int exit = consumer.waitFor(10, TimeUnit.SECONDS) ? consumer.exitValue() : -1;
            Scenario.check(Dubbo27Checks.HOST_CONSUMER_EXIT, exit == 0, "the Dubbo 2.7 consumer exited with " + exit
                    + " (its stderr: " + Scenario.workDirectory().resolve("dubbo27-consumer-stderr.log") + ")");
            Scenario.check(Dubbo27Checks.HOST_ONE_WAY_RAN, types.fired.await(5, TimeUnit.SECONDS),
                    "the consumer's one-way call never ran on the server");
            CompletableFuture<Void> closeFuture = closed;
            if (closeFuture == null) {
                Scenario.fail(Dubbo27Checks.HOST_CLOSE_FINISHED, "the consumer never asked for the graceful close");
                closing.closeNow();
            } else {
                try {
                    closeFuture.get(10, TimeUnit.SECONDS);
                    Scenario.ok(Dubbo27Checks.HOST_CLOSE_FINISHED);
                } catch (Exception e) {
                    Scenario.fail(Dubbo27Checks.HOST_CLOSE_FINISHED, "graceful close did not finish: " + e);
                }
            }
            Scenario.check(Dubbo27Checks.HOST_GADGET_NEVER_LOADED, System.getProperty(StaticInitGadget.TRACE) == null,
                    "the server initialized " + GenericCases.GADGET + ", named by the consumer's refused-class case");
            server.close();
            Scenario.ok("host.stop", "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        });
    }

    private static TypesServiceImpl prefixed(String prefix) {
        return new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
            @Override
            public String echo(String text) {
                return prefix + text;
            }
        };
    }

    /** Null once {@code n} calls are in flight on {@code server} (within 10 s), else what went wrong. */
    private static String awaitInFlight(SluiceServer server, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.inFlight() < n && System.nanoTime() < deadline) {
            Thread.yield();
        }
        return server.inFlight() == n ? null : "only " + server.inFlight() + " of " + n + " calls reached the server";
    }

    /** Starts the consumer JVM ({@link PeerProcess}) with the two {@code --add-opens} Dubbo 2.7 needs on JDK 17. */
    private static Process start(String classpath, int mainPort, int closingPort) throws IOException {
        // Without java.lang, Dubbo 2.7's javassist cannot compile its adaptive extensions (Protocol$Adaptive); without
        // java.math, hessian-lite 3.2 cannot write a BigInteger (it serializes its private fields).
        return PeerProcess.start("dubbo27-consumer", classpath, List.of(
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--add-opens=java.base/java.math=ALL-UNNAMED",
                "-Ddubbo.application.qos.enable=false",
                "-Ddubbo.service.shutdown.wait=500"),
                Dubbo27ConsumerScenario.class.getName(), Scenario.testAddress(), Integer.toString(mainPort),
                Integer.toString(closingPort));
    }
}
