package dev.sluice.it.conformance;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import dev.sluice.rpc.Serialization;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Child-JVM main of {@link ConformanceTest}: builds the two sides of one {@link Pairing} in this JVM, talking over
 * TCP to {@link Scenario#testAddress()}, and runs every {@link Check} that applies to it, in order; each check prints
 * its own {@code RESULT} lines (see {@link Check#resultNames()}). Arg: the pairing's name.
 *
 * <p>Runs on the child's main thread.
 */
public final class ConformanceScenario {
    private ConformanceScenario() {}

    private static void timed(ConformanceChecks checks, Check check) {
        long start = System.nanoTime();
        checks.run(check);
        System.out.println("check " + check + " took " + (System.nanoTime() - start) / 1_000_000 + " ms");
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            Pairing pairing = Pairing.valueOf(args[0]);
            if (DubboNodes.CLIENT_BY_PROPERTY.equals(pairing.clientTransporter())) {
                // The guide's switch for consumers: no client on the reference, Dubbo's consumer default instead.
                System.setProperty("dubbo.consumer.client", "sluice");
            }
            DubboPeers.quietDefaults();
            DubboNodes.useSerialization(pairing.dubboSerialization());
            String host = Scenario.testAddress();

            long t0 = System.nanoTime();
            ServerSide server = pairing.sluiceServer() ? new SluiceServerSide()
                    : new DubboProviderSide(pairing.serverTransporter());
            ClientSide client = pairing.sluiceClient()
                    ? new SluiceClientSide(host, server.port(), Serialization.valueOf(
                            pairing.wireSerialization().toUpperCase(java.util.Locale.ROOT)))
                    : new DubboConsumerSide(pairing.clientTransporter(), host, server.port());
            ConformanceChecks checks = new ConformanceChecks(pairing, host, client, server);
            ExecutorService background = Executors.newSingleThreadExecutor(r -> new Thread(r, "heartbeat-check"));
            try {
                checks.start(t0);
                Future<?> heartbeat = background.submit(() -> timed(checks, Check.HEARTBEAT));
                for (Check check : pairing.checks()) {
                    if (check == Check.USERS) {
                        heartbeat.get(60, TimeUnit.SECONDS);
                    }
                    if (check != Check.START && check != Check.STOP && check != Check.HEARTBEAT) {
                        timed(checks, check);
                    }
                }
                heartbeat.get(60, TimeUnit.SECONDS);
            } finally {
                background.shutdownNow();
                long t1 = System.nanoTime();
                client.close();
                server.close();
                Scenario.ok(Check.STOP.resultName(), "ms", (System.nanoTime() - t1) / 1_000_000);
            }
        });
    }
}
