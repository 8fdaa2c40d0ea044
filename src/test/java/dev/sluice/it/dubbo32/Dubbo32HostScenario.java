package dev.sluice.it.dubbo32;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.EchoService;
import dev.sluice.it.harness.EchoServiceImpl;
import dev.sluice.it.harness.PeerProcess;
import dev.sluice.it.harness.Scenario;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.dubbo.common.Version;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ServiceConfig;

/**
 * The child JVM of {@link Dubbo32InteropTest}, in the harness's private network namespace, on the test classpath
 * (Dubbo 3.3.6, Sluice, Netty 4.2): exports {@link EchoService} from a Dubbo 3.3.6 provider with
 * {@code server=sluice} (one hessian2 port, one fastjson2 port), starts a Dubbo 3.2.19 provider
 * ({@link Dubbo32PeerScenario} {@code provider}) and then a Dubbo 3.2.19 consumer ({@code consumer}) as JVMs of their
 * own on module {@code dubbo32-classpath}'s jars ({@link PeerProcess}), and has the consumer call all four ports with
 * {@code client=sluice}. The peers' results are relayed with the prefixes {@value #PROVIDER} and {@value #CONSUMER};
 * a {@code LEAK:} report in a peer's stderr fails {@value #PEER_LEAKS}.
 *
 * <p>Args: {@code dubbo32Classpath}. Runs on its main thread; one more thread reads the 3.2 provider's output.
 */
public final class Dubbo32HostScenario {
    static final String PROVIDER = "provider32.";
    static final String CONSUMER = "consumer32.";
    static final String HOST_START = "host.provider33-start";
    static final String PEERS_EXITED = "host.peers-exited";
    static final String PEER_LEAKS = "host.peer-leaks";
    /** The consumer's targets: Dubbo 3.2.19 and 3.3.6 providers, each in hessian2 and fastjson2. */
    static final List<String> TARGETS = List.of("dubbo32-hessian2", "dubbo32-fastjson2", "dubbo33-hessian2",
            "dubbo33-fastjson2");
    private static final Pattern PORT = Pattern.compile("(hessian2|fastjson2)Port=(\\d+)");
    /** Sluice's relocated Netty reads its properties under its own prefix: paranoid leak detection there too. */
    private static final List<String> PEER_FLAGS = List.of(
            "-Ddev.sluice.shaded.io.netty.leakDetection.level=paranoid",
            "-Ddubbo.application.qos.enable=false",
            "-Ddubbo.service.shutdown.wait=500");

    private Dubbo32HostScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            String classpath = args[0];
            DubboPeers.quietDefaults();
            String host = Scenario.testAddress();
            ServiceConfig<EchoService> service = DubboPeers.service(EchoService.class, new EchoServiceImpl());
            service.setApplication(DubboPeers.application("sluice-dubbo33-provider"));
            service.setRegistry(DubboPeers.noRegistry());
            List<ProtocolConfig> protocols = DubboPeers.fastjson2AndHessian2();
            protocols.forEach(p -> p.setServer("sluice"));
            protocols.get(1).setSerialization("hessian2"); // explicit: the test names it
            service.setProtocols(protocols);
            service.export();
            Scenario.ok(HOST_START, "dubbo", Version.getVersion(), "fastjson2Port", protocols.get(0).getPort(),
                    "hessian2Port", protocols.get(1).getPort());

            Process provider = PeerProcess.start("dubbo32-provider", classpath, PEER_FLAGS,
                    Dubbo32PeerScenario.class.getName(), "provider");
            CompletableFuture<Map<String, String>> ports = new CompletableFuture<>();
            Thread reader = new Thread(() -> relayProvider(provider, ports), "dubbo32-provider-output");
            reader.setDaemon(true);
            reader.start();
            int consumerExit = -1;
            try (Writer control = new OutputStreamWriter(provider.getOutputStream(), StandardCharsets.UTF_8)) {
                Map<String, String> p32 = ports.get(60, TimeUnit.SECONDS);
                Process consumer = PeerProcess.start("dubbo32-consumer", classpath, PEER_FLAGS,
                        Dubbo32PeerScenario.class.getName(), "consumer", host,
                        TARGETS.get(0) + ":" + p32.get("hessian2") + ":hessian2",
                        TARGETS.get(1) + ":" + p32.get("fastjson2") + ":fastjson2",
                        TARGETS.get(2) + ":" + protocols.get(1).getPort() + ":hessian2",
                        TARGETS.get(3) + ":" + protocols.get(0).getPort() + ":fastjson2");
                try (BufferedReader out = new BufferedReader(new InputStreamReader(consumer.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = out.readLine()) != null; ) {
                        PeerProcess.relay(CONSUMER, "dubbo32-consumer", line);
                    }
                }
                if (consumer.waitFor(60, TimeUnit.SECONDS)) {
                    consumerExit = consumer.exitValue();
                } else {
                    consumer.destroyForcibly();
                }
                control.write(Dubbo32PeerScenario.STOP + "\n");
                control.flush();
            } catch (IOException e) {
                System.err.println("control line to the Dubbo 3.2 provider: " + e);
            }
            int providerExit = -1;
            if (provider.waitFor(60, TimeUnit.SECONDS)) {
                providerExit = provider.exitValue();
            } else {
                provider.destroyForcibly();
            }
            reader.join(10_000);
            Scenario.check(PEERS_EXITED, consumerExit == 0 && providerExit == 0, "Dubbo 3.2 consumer exit "
                    + consumerExit + ", provider exit " + providerExit + " (stderr in " + Scenario.workDirectory()
                    + ")");
            List<String> leaks = new ArrayList<>();
            for (String peer : List.of("dubbo32-provider", "dubbo32-consumer")) {
                Path log = PeerProcess.stderrLog(peer);
                if (Files.exists(log) && Files.readString(log).contains("LEAK:")) {
                    leaks.add(log.toString());
                }
            }
            Scenario.check(PEER_LEAKS, leaks.isEmpty(), "Netty reported leaks in " + leaks);
            service.unexport();
        });
    }

    /** Relays the 3.2 provider's output and completes {@code ports} from its start result (or fails it at EOF). */
    private static void relayProvider(Process provider, CompletableFuture<Map<String, String>> ports) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(provider.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("RESULT name=" + Dubbo32PeerScenario.PROVIDER_START + " ok")) {
                    Matcher m = PORT.matcher(line);
                    Map<String, String> found = new HashMap<>();
                    while (m.find()) {
                        found.put(m.group(1), m.group(2));
                    }
                    ports.complete(found);
                }
                PeerProcess.relay(PROVIDER, "dubbo32-provider", line);
            }
        } catch (IOException e) {
            System.err.println("reading the Dubbo 3.2 provider: " + e);
        }
        ports.completeExceptionally(new IllegalStateException("the Dubbo 3.2 provider exited before it reported its "
                + "ports; its stderr: " + PeerProcess.stderrLog("dubbo32-provider")));
    }
}
