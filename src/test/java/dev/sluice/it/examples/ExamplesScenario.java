package dev.sluice.it.examples;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Child side of {@link ExamplesTest}: runs one example's programs as a user runs them from the guides, each as its
 * own process, here inside the harness's private network namespace, and reports what they printed.
 *
 * <p>Arguments: {@code standalone <greeter.jar>} or {@code spring-boot <greeter-provider.jar> <greeter-consumer.jar>}.
 * Every program gets paranoid leak detection and a bounded heap; every wait is bounded.
 *
 * <p>Runs on the scenario's main thread; each program's output is read by its own thread ({@link ExampleProcess}).
 */
public final class ExamplesScenario {
    static final List<String> NAMES = List.of("Ada", "Grace", "Linus");
    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration RUN = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(30);

    private ExamplesScenario() {}

    public static void main(String[] args) {
        Scenario.run(() -> {
            switch (args[0]) {
                case "standalone":
                    standalone(Paths.get(args[1]));
                    break;
                case "spring-boot":
                    springBoot(Paths.get(args[1]), Paths.get(args[2]));
                    break;
                default:
                    throw new IllegalArgumentException("unknown example " + args[0]);
            }
        });
    }

    /** The JVM flags of every example program: the test's leak gate, a bounded heap, a private home directory. */
    private static List<String> jvmFlags() throws IOException {
        Path home = Files.createDirectories(Scenario.workDirectory().resolve("home"));
        return List.of("-Dio.netty.leakDetection.level=paranoid", "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-Duser.home=" + home);
    }

    private static List<String> command(List<String> flags, String... rest) {
        List<String> all = new ArrayList<>(flags);
        all.addAll(List.of(rest));
        return all;
    }

    private static void standalone(Path jar) throws Exception {
        requireFile(jar);
        Path dir = Scenario.workDirectory();
        String host = Scenario.testAddress();
        int port = DubboPeers.freePort();
        List<String> flags = jvmFlags();
        String cp = jar.toString();
        try (ExampleProcess server = ExampleProcess.startJava("server", dir, command(flags, "-cp", cp,
                "dev.sluice.examples.standalone.SluiceServerMain", Integer.toString(port)))) {
            server.awaitLine(l -> l.startsWith("SluiceServer listening on port " + port), START,
                    "'SluiceServer listening on port " + port + "'");
            Scenario.ok("server-started", "port", port);

            List<String> clientArgs = new ArrayList<>(List.of("-cp", cp,
                    "dev.sluice.examples.standalone.SluiceClientMain", host, Integer.toString(port)));
            clientArgs.addAll(NAMES);
            int clientExit;
            List<String> answers;
            try (ExampleProcess client = ExampleProcess.startJava("client", dir, command(flags,
                    clientArgs.toArray(new String[0])))) {
                clientExit = client.awaitExit(RUN);
                answers = client.lines().stream().filter(l -> l.startsWith("greet")).toList();
                reportLeaks("client", client);
            }
            List<String> problems = new ArrayList<>();
            if (clientExit != 0) {
                problems.add("client exit code " + clientExit);
            }
            for (String name : NAMES) {
                // servedBy is the server thread that ran the method: Sluice's service pool.
                expect(problems, answers, "greet(" + name + ") = Hello, " + name + "! (served by sluice-service-");
                expect(problems, answers, "greetLater(" + name + ") = Hello later, " + name
                        + "! (served by sluice-service-");
            }
            report("client-calls", problems, "answers", answers.size());

            server.stop();
            int serverExit = server.awaitExit(STOP);
            // 143 = 128 + SIGTERM: the JVM ran its shutdown hooks and exited as asked.
            Scenario.check("server-stopped", server.printed("SluiceServer closed") && serverExit == 143,
                    "server exit " + serverExit + ", printed 'SluiceServer closed': "
                            + server.printed("SluiceServer closed"));
            reportLeaks("server", server);
        }
    }

    private static void springBoot(Path providerJar, Path consumerJar) throws Exception {
        requireFile(providerJar);
        requireFile(consumerJar);
        Path dir = Scenario.workDirectory();
        String host = Scenario.testAddress();
        int port = DubboPeers.freePort();
        List<String> flags = jvmFlags();
        try (ExampleProcess provider = ExampleProcess.startJava("provider", dir, command(flags,
                "-jar", providerJar.toString(), "--dubbo.protocol.port=" + port))) {
            provider.awaitLine(l -> l.contains("Started ProviderApplication"), START, "'Started ProviderApplication'");
            // Dubbo logs which RemotingServer it started: the class name is the transport.
            Scenario.check("provider-started", provider.printed("Start SluiceDubboServer bind /0.0.0.0:" + port)
                            && !provider.printed("Start NettyServer"),
                    "no 'Start SluiceDubboServer bind /0.0.0.0:" + port + "' line, or Dubbo's NettyServer started");

            int consumerExit;
            List<String> answers;
            boolean sluiceClient;
            boolean nettyClient;
            try (ExampleProcess consumer = ExampleProcess.startJava("consumer", dir, command(flags,
                    "-jar", consumerJar.toString(),
                    "--greeter.url=dubbo://" + host + ":" + port,
                    "--greeter.names=" + String.join(",", NAMES)))) {
                consumerExit = consumer.awaitExit(RUN);
                answers = consumer.lines().stream().filter(l -> l.startsWith("greet(")).toList();
                sluiceClient = consumer.printed("from SluiceDubboClient");
                nettyClient = consumer.printed("NettyClient");
                reportLeaks("consumer", consumer);
            }
            List<String> problems = new ArrayList<>();
            if (consumerExit != 0) {
                problems.add("consumer exit code " + consumerExit);
            }
            for (String name : NAMES) {
                expect(problems, answers, "greet(" + name + ") = Hello, " + name + "! (served by greeter-provider)");
            }
            report("consumer-calls", problems, "answers", answers.size());
            // The consumer's Dubbo connected through the sluice Transporter, and never through its own netty4 one.
            Scenario.check("consumer-transport", sluiceClient && !nettyClient,
                    "consumer log: 'from SluiceDubboClient' " + sluiceClient + ", 'NettyClient' " + nettyClient);

            // The provider's I/O threads are Sluice's event loops; Dubbo's netty4 server would run NettyServerWorker.
            List<String> threads = provider.threadNames(Duration.ofSeconds(20));
            long sluiceLoops = threads.stream().filter(t -> t.startsWith("sluice-server-")).count();
            long nettyWorkers = threads.stream()
                    .filter(t -> t.toLowerCase(Locale.ROOT).contains("nettyserver")).count();
            Scenario.check("provider-threads", sluiceLoops > 0 && nettyWorkers == 0,
                    "provider threads: " + sluiceLoops + " sluice-server-*, " + nettyWorkers + " NettyServer*: "
                            + threads);
            Scenario.ok("provider-loops", "sluiceLoops", sluiceLoops, "nettyWorkers", nettyWorkers);

            provider.stop();
            int providerExit = provider.awaitExit(STOP);
            Scenario.check("provider-stopped", providerExit == 143 && provider.printed("Close SluiceDubboServer"),
                    "provider exit " + providerExit + ", printed 'Close SluiceDubboServer': "
                            + provider.printed("Close SluiceDubboServer"));
            reportLeaks("provider", provider);
        }
    }

    private static void expect(List<String> problems, List<String> answers, String prefix) {
        if (answers.stream().noneMatch(a -> a.startsWith(prefix))) {
            problems.add("no answer starting '" + prefix + "' in " + answers);
        }
    }

    private static void report(String name, List<String> problems, Object... metrics) {
        if (problems.isEmpty()) {
            Scenario.ok(name, metrics);
        } else {
            Scenario.fail(name, String.join("; ", problems));
        }
    }

    private static void reportLeaks(String program, ExampleProcess process) {
        List<String> leaks = process.leakReports();
        if (!leaks.isEmpty()) {
            Scenario.fail(program + "-leaks", leaks.size() + " Netty LEAK report(s): " + leaks);
        }
    }

    private static void requireFile(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new UncheckedIOException(new IOException(jar + " not found: the examples are packaged by `mvn "
                    + "package` (the full build packages them before integration-tests; alone: `mvn -B package "
                    + "-DskipTests -pl examples/standalone,examples/spring-boot-dubbo -am`)"));
        }
    }
}
