package dev.sluice.it.dubbo32;

import dev.sluice.it.harness.CallLoad;
import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.DubboSmokeScenario;
import dev.sluice.it.harness.EchoService;
import dev.sluice.it.harness.EchoServiceImpl;
import dev.sluice.it.harness.Scenario;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.dubbo.common.Version;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;

/**
 * A Dubbo 3.2.19 application on the {@code sluice} Transporter, for {@link Dubbo32InteropTest}: started by
 * {@link Dubbo32HostScenario} inside its network namespace on the class path module {@code dubbo32-classpath} builds
 * (Dubbo 3.2.19 with its own Netty 4.1, and the published shaded {@code sluice-dubbo} jar), plus the few test
 * classes it runs. Compiled against Dubbo 3.3.6, it calls only API that Dubbo 3.2 has too.
 *
 * <p>Args {@code provider}: exports {@link EchoService} with {@code server=sluice} on two ports, one hessian2, one
 * fastjson2; reports them in result {@value #PROVIDER_START} and serves until its stdin says {@value #STOP} (or
 * closes). Args {@code consumer host name:port:serialization...}: for each target, a reference with
 * {@code client=sluice} and that serialization makes a first call and a concurrent load, every answer checked.
 * Both first check ({@value #START}) that they run Dubbo 3.2.19 on Netty 4.1 with Sluice's shaded Netty 4.2, and at
 * the end ({@value #SLUICE_THREADS}) that Sluice's I/O threads carried the calls and Dubbo's netty4 ones did not.
 *
 * <p>Runs on its main thread.
 */
public final class Dubbo32PeerScenario {
    static final String START = "start";
    static final String PROVIDER_START = "provider-start";
    static final String SLUICE_THREADS = "sluice-threads";
    static final String STOP = "stop";
    static final String DUBBO_VERSION = "3.2.19";
    private static final int LOAD_THREADS = 4;
    private static final int CALLS_PER_THREAD = 25;

    private Dubbo32PeerScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            DubboPeers.quietDefaults();
            checkStart();
            if ("provider".equals(args[0])) {
                provide();
            } else {
                consume(args[1], List.of(args).subList(2, args.length));
            }
        });
    }

    private static void provide() throws Exception {
        List<ProtocolConfig> protocols = new ArrayList<>();
        for (String serialization : List.of("hessian2", "fastjson2")) {
            ProtocolConfig protocol = new ProtocolConfig("dubbo", DubboPeers.freePort());
            protocol.setId("dubbo-" + serialization);
            protocol.setSerialization(serialization);
            protocol.setServer("sluice");
            protocols.add(protocol);
        }
        ServiceConfig<EchoService> service = DubboPeers.service(EchoService.class, new EchoServiceImpl());
        service.setApplication(DubboPeers.application("sluice-dubbo32-provider"));
        service.setRegistry(DubboPeers.noRegistry());
        service.setProtocols(protocols);
        service.export();
        Scenario.ok(PROVIDER_START, "hessian2Port", protocols.get(0).getPort(),
                "fastjson2Port", protocols.get(1).getPort());
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = stdin.readLine()) != null && !STOP.equals(line.trim()); ) {
            System.out.println("ignored control line " + line);
        }
        checkThreads("sluice-server-", "NettyServerWorker");
        service.unexport();
    }

    private static void consume(String host, List<String> targets) throws Exception {
        ApplicationConfig application = DubboPeers.application("sluice-dubbo32-consumer");
        RegistryConfig noRegistry = DubboPeers.noRegistry();
        List<ReferenceConfig<EchoService>> references = new ArrayList<>();
        for (String target : targets) {
            String[] t = target.split(":");
            String name = t[0];
            String serialization = t[2];
            ReferenceConfig<EchoService> reference = DubboPeers.reference(EchoService.class, host,
                    Integer.parseInt(t[1]), 10_000);
            reference.setUrl("dubbo://" + host + ":" + t[1] + "?serialization=" + serialization);
            reference.setClient("sluice");
            reference.setApplication(application);
            reference.setRegistry(noRegistry);
            references.add(reference);
            EchoService echo = reference.get();
            AtomicReference<String> seenFrom = new AtomicReference<>();
            CallLoad.Result load = CallLoad.run(LOAD_THREADS, CALLS_PER_THREAD,
                    index -> DubboSmokeScenario.oneCall(echo, index, seenFrom));
            if (load.errors() > 0) {
                Scenario.fail(name, load.failureSummary());
            } else if (!host.equals(seenFrom.get())) {
                Scenario.fail(name, "the provider saw the consumer as " + seenFrom.get() + ", expected " + host);
            } else {
                Scenario.ok(name, "serialization", serialization, "calls", load.count(), "wallms", load.wallMillis());
            }
        }
        checkThreads("sluice-dubbo-client-", "NettyClientWorker");
        references.forEach(ReferenceConfig::destroy);
    }

    /** Dubbo 3.2.19, the application's Netty 4.1 only, and the shaded sluice-dubbo jar with its Netty 4.2. */
    private static void checkStart() {
        String dubbo = Version.getVersion();
        String netty = io.netty.util.Version.identify().values().stream()
                .map(io.netty.util.Version::artifactVersion).distinct().sorted()
                .reduce((a, b) -> a + "," + b).orElse("none");
        String sluiceJar = jarOf("dev.sluice.dubbo.SluiceTransporter");
        String shadedNetty = jarOf("dev.sluice.shaded.io.netty.channel.IoHandlerFactory");
        String problem = !DUBBO_VERSION.equals(dubbo) ? "Dubbo " + dubbo
                : !netty.startsWith("4.1.") || netty.contains(",") ? "the application's Netty is " + netty
                : !sluiceJar.matches("sluice-dubbo-[0-9.]+(-SNAPSHOT)?\\.jar") ? "SluiceTransporter came from "
                        + sluiceJar + ", not the shaded sluice-dubbo jar"
                : !sluiceJar.equals(shadedNetty) ? "the relocated Netty came from " + shadedNetty
                : jarOf("io.netty.channel.IoHandlerFactory").equals("absent") ? null
                : "Netty 4.2's io.netty.channel.IoHandlerFactory is on the application's class path";
        if (problem == null) {
            Scenario.ok(START, "dubbo", dubbo, "netty", netty, "sluice", sluiceJar,
                    "java", System.getProperty("java.version"));
        } else {
            Scenario.fail(START, problem);
        }
    }

    /** Threads named {@code sluicePrefix*} exist and none named {@code nettyPrefix*} (Dubbo's netty4 transport). */
    private static void checkThreads(String sluicePrefix, String nettyPrefix) {
        List<String> names = new ArrayList<>();
        Thread.getAllStackTraces().keySet().forEach(t -> names.add(t.getName()));
        long sluice = names.stream().filter(n -> n.startsWith(sluicePrefix)).count();
        List<String> netty4 = names.stream().filter(n -> n.startsWith(nettyPrefix)).toList();
        Scenario.check(SLUICE_THREADS, sluice > 0 && netty4.isEmpty(), "threads " + sluicePrefix + "*: " + sluice
                + ", " + nettyPrefix + "*: " + netty4 + " (all: " + names + ")");
    }

    /** The file name of the jar (or directory) {@code className} loads from, or {@code absent}. */
    private static String jarOf(String className) {
        try {
            CodeSource source = Class.forName(className, false, Dubbo32PeerScenario.class.getClassLoader())
                    .getProtectionDomain().getCodeSource();
            return source == null ? "unknown" : Paths.get(source.getLocation().toURI()).getFileName().toString();
        } catch (ClassNotFoundException e) {
            return "absent";
        } catch (java.net.URISyntaxException e) {
            return "unknown: " + e;
        }
    }
}
