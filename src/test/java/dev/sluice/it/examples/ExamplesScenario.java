package dev.sluice.it.examples;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import io.netty.channel.epoll.Epoll;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

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
    /** A Spring Boot application with its web server and actuator takes a while on a loaded 2-core machine. */
    private static final Duration START = Duration.ofSeconds(150);
    private static final Duration RUN = Duration.ofSeconds(150);
    private static final Duration STOP = Duration.ofSeconds(30);
    /** The key that selects Sluice's native transport (a URL key, or a system property as here). */
    private static final String NATIVE = "sluice.native";
    /** Where the sluice-dubbo jar relocates the Netty it runs on (dubbo/pom.xml). */
    static final String SHADED_NETTY = "dev.sluice.shaded.io.netty";
    /** The epoll library the relocated Netty loads: Netty prefixes its name with the relocated package. */
    static final String SHADED_EPOLL_LIBRARY = "libdev_sluice_shaded_netty_transport_native_epoll_";

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
                case "shaded-jar":
                    shadedJar(Paths.get(args[1]));
                    break;
                default:
                    throw new IllegalArgumentException("unknown example " + args[0]);
            }
        });
    }

    /**
     * The JVM flags of every example program: the test's leak gate, a bounded heap, a private home directory. The
     * leak detection level is set twice: for the application's Netty and for the Netty relocated inside the
     * sluice-dubbo jar, which reads its system properties under its own package.
     */
    private static List<String> jvmFlags() throws IOException {
        Path home = Files.createDirectories(Scenario.workDirectory().resolve("home"));
        return List.of("-Dio.netty.leakDetection.level=paranoid", "-D" + SHADED_NETTY + ".leakDetection.level=paranoid",
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Duser.home=" + home);
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
        nettyOnClasspath(providerJar, dir.resolve("provider-lib"));
        // Sluice inside Dubbo follows Dubbo's default (NIO) unless told: ask for epoll where the machine has it.
        flags = command(flags, "-D" + NATIVE + "=auto");
        // Dubbo's QoS server runs on the application's Netty (4.1 here), beside Sluice's relocated one.
        int qosPort = DubboPeers.freePort();
        int httpPort = DubboPeers.freePort();
        try (ExampleProcess provider = ExampleProcess.startJava("provider", dir, command(flags,
                "-jar", providerJar.toString(), "--dubbo.protocol.port=" + port, "--server.port=" + httpPort,
                "--dubbo.application.qos-enable=true", "--dubbo.application.qos-port=" + qosPort))) {
            provider.awaitLine(l -> l.contains("Started ProviderApplication"), START, "'Started ProviderApplication'");
            // Dubbo logs which RemotingServer it started: the class name is the transport.
            Scenario.check("provider-started", provider.printed("Start SluiceDubboServer bind /0.0.0.0:" + port)
                            && !provider.printed("Start NettyServer"),
                    "no 'Start SluiceDubboServer bind /0.0.0.0:" + port + "' line, or Dubbo's NettyServer started");

            int consumerExit;
            List<String> answers;
            boolean sluiceClient;
            boolean nettyClient;
            String consumerMeters;
            try (ExampleProcess consumer = ExampleProcess.startJava("consumer", dir, command(flags,
                    "-jar", consumerJar.toString(),
                    "--greeter.url=dubbo://" + host + ":" + port,
                    "--greeter.names=" + String.join(",", NAMES)))) {
                consumerExit = consumer.awaitExit(RUN);
                answers = consumer.lines().stream().filter(l -> l.startsWith("greet(")).toList();
                sluiceClient = consumer.printed("from SluiceDubboClient");
                nettyClient = consumer.printed("NettyClient");
                consumerMeters = consumer.lines().stream().filter(l -> l.startsWith("sluice meters: ")).findFirst()
                        .orElse("");
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
            consumerMeters(consumerMeters);
            prometheus(httpPort);
            connectionLimit(provider, host, port, httpPort);

            // The provider's I/O threads are Sluice's event loops; Dubbo's netty4 server would run NettyServerWorker.
            List<String> threads = provider.threadNames(Duration.ofSeconds(20));
            long sluiceLoops = threads.stream().filter(t -> t.startsWith("sluice-server-")).count();
            long nettyWorkers = threads.stream()
                    .filter(t -> t.toLowerCase(Locale.ROOT).contains("nettyserver")).count();
            Scenario.check("provider-threads", sluiceLoops > 0 && nettyWorkers == 0,
                    "provider threads: " + sluiceLoops + " sluice-server-*, " + nettyWorkers + " NettyServer*: "
                            + threads);
            Scenario.ok("provider-loops", "sluiceLoops", sluiceLoops, "nettyWorkers", nettyWorkers);
            nativeTransport(provider.pid());
            dubboNettyServes(qosPort);

            provider.stop();
            int providerExit = provider.awaitExit(STOP);
            Scenario.check("provider-stopped", providerExit == 143 && provider.printed("Close SluiceDubboServer"),
                    "provider exit " + providerExit + ", printed 'Close SluiceDubboServer': "
                            + provider.printed("Close SluiceDubboServer"));
            reportLeaks("provider", provider);
        }
    }

    /**
     * {@link ShadedJarMain} in its own JVM on the jars the Spring Boot provider ships, less Spring: the published
     * sluice-dubbo jar, Dubbo and its dependencies, Spring Boot's Netty 4.1. It serves over Sluice on the relocated
     * epoll (where the machine has it) and answers both Sluice's client and Dubbo's own netty4 client.
     */
    private static void shadedJar(Path providerJar) throws Exception {
        requireFile(providerJar);
        Path dir = Scenario.workDirectory();
        Path lib = dir.resolve("shaded-jar-lib");
        nettyOnClasspath(providerJar, lib);
        List<String> entries = new ArrayList<>();
        try (Stream<Path> jars = Files.list(lib)) {
            jars.filter(j -> !j.getFileName().toString().startsWith("spring-")
                            && !j.getFileName().toString().startsWith("dubbo-spring-boot"))
                    .sorted().forEach(j -> entries.add(j.toString()));
        }
        // The two test classes the program runs: copied, so nothing else of the test class path comes along.
        Path classes = dir.resolve("shaded-jar-classes");
        for (Class<?> c : List.of(ShadedJarMain.class, ShadedJarMain.Echo.class, DubboPeers.class)) {
            String name = c.getName().replace('.', '/') + ".class";
            Path target = classes.resolve(name);
            Files.createDirectories(target.getParent());
            try (InputStream in = c.getClassLoader().getResourceAsStream(name)) {
                Files.copy(in, target);
            }
        }
        entries.add(classes.toString());
        int port = DubboPeers.freePort();
        List<String> flags = command(jvmFlags(), "-D" + NATIVE + "=auto");
        try (ExampleProcess program = ExampleProcess.startJava("shaded-jar", dir, command(flags,
                "-cp", String.join(File.pathSeparator, entries), ShadedJarMain.class.getName(),
                Scenario.testAddress(), Integer.toString(port)))) {
            int exit = program.awaitExit(RUN);
            Map<String, String> facts = new TreeMap<>();
            for (String line : program.lines()) {
                int eq = line.indexOf('=');
                if (line.startsWith("SHADED ") && eq > 0) {
                    facts.put(line.substring("SHADED ".length(), eq), line.substring(eq + 1));
                }
            }
            boolean epoll = Epoll.isAvailable();
            Scenario.check("shaded-jar-calls", exit == 0 && program.printed("SHADED done")
                            && "sluice:a".equals(facts.get("sluiceClient"))
                            && "netty4:b".equals(facts.get("netty4Client"))
                            && "true".equals(facts.get("sluicePool"))
                            && facts.getOrDefault("nettyCommon", "").startsWith("4.1.")
                            && (!epoll || "true".equals(facts.get("shadedEpollLoaded"))),
                    "exit " + exit + ", epoll available " + epoll + ", printed " + facts);
            Scenario.ok("shaded-jar-facts", "nettyCommon", facts.get("nettyCommon"), "shadedEpollLoaded",
                    facts.get("shadedEpollLoaded"), "epollAvailable", epoll);
            reportLeaks("shaded-jar", program);
        }
    }

    /**
     * What {@code io.netty.util.Version} reports on the provider's class path (the jars in the executable jar's
     * {@code BOOT-INF/lib}, loaded apart from this JVM's Netty): Spring Boot's Netty 4.1 only. Netty 4.2's
     * {@code io.netty.channel.IoHandlerFactory} must not be loadable there, and the relocated Netty must be.
     */
    private static void nettyOnClasspath(Path bootJar, Path libDir) throws Exception {
        List<URL> urls = new ArrayList<>();
        List<String> jars = new ArrayList<>();
        try (ZipFile zip = new ZipFile(bootJar.toFile())) {
            for (ZipEntry e : zip.stream().toList()) {
                if (e.getName().startsWith("BOOT-INF/lib/") && e.getName().endsWith(".jar")) {
                    Path jar = libDir.resolve(e.getName().substring("BOOT-INF/lib/".length()));
                    Files.createDirectories(libDir);
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, jar);
                    }
                    urls.add(jar.toUri().toURL());
                    jars.add(jar.getFileName().toString());
                }
            }
        }
        Map<String, String> versions = new TreeMap<>();
        Map<String, String> shadedVersions = new TreeMap<>();
        boolean netty42;
        try (URLClassLoader app = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
            versions.putAll(identify(app, "io.netty"));
            shadedVersions.putAll(identify(app, SHADED_NETTY));
            netty42 = loadable(app, "io.netty.channel.IoHandlerFactory");
        }
        List<String> sluiceModules = jars.stream()
                .filter(j -> j.startsWith("sluice-transport-netty") || j.startsWith("sluice-codec-dubbo")).toList();
        boolean boot41 = !versions.isEmpty() && versions.values().stream().allMatch(v -> v.startsWith("4.1."));
        boolean shaded42 = !shadedVersions.isEmpty()
                && shadedVersions.values().stream().allMatch(v -> v.startsWith("4.2."));
        Scenario.check("provider-netty", boot41 && !netty42 && shaded42 && sluiceModules.isEmpty(),
                "io.netty.util.Version: " + versions + "; Netty 4.2 classes loadable: " + netty42 + "; relocated: "
                        + shadedVersions + "; sluice modules beside sluice-dubbo: " + sluiceModules);
        Scenario.ok("provider-netty-versions", "nettyCommon", versions.get("netty-common"),
                "shadedNettyCommon", shadedVersions.get("netty-common"));
    }

    /** {@code <prefix>.util.Version.identify(loader)}: artifact id to version, for the Netty under that package. */
    private static Map<String, String> identify(ClassLoader loader, String prefix) throws Exception {
        Class<?> version = Class.forName(prefix + ".util.Version", true, loader);
        Method artifactVersion = version.getMethod("artifactVersion");
        Map<?, ?> found = (Map<?, ?>) version.getMethod("identify", ClassLoader.class).invoke(null, loader);
        Map<String, String> versions = new TreeMap<>();
        for (Map.Entry<?, ?> e : found.entrySet()) {
            versions.put(e.getKey().toString(), artifactVersion.invoke(e.getValue()).toString());
        }
        return versions;
    }

    private static boolean loadable(ClassLoader loader, String name) {
        try {
            Class.forName(name, false, loader);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Sluice's loops run on epoll where this machine has it: the provider process has the relocated epoll library
     * mapped (Netty extracts it under its own name plus a random suffix). Read from {@code /proc/<pid>/maps}.
     */
    private static void nativeTransport(long pid) throws IOException {
        List<String> maps = Files.readAllLines(Paths.get("/proc", Long.toString(pid), "maps"));
        boolean shadedEpoll = maps.stream().anyMatch(l -> l.contains(SHADED_EPOLL_LIBRARY));
        boolean available = Epoll.isAvailable();
        Scenario.check("provider-epoll", shadedEpoll || !available,
                "epoll available on this machine, but the provider has no " + SHADED_EPOLL_LIBRARY + "* mapped");
        Scenario.ok("provider-native", "epollAvailable", available, "shadedEpollLoaded", shadedEpoll);
    }

    /**
     * What the consumer printed of Sluice's meters: its call timer, tagged as Dubbo tags its own call meters
     * ({@code interface}, {@code method}, {@code group}, {@code version}, {@code application.name} = the Spring
     * application's name), counted every greeting; and frames sent under the transport name its application.yml gives
     * in {@code dubbo.consumer.parameters.sluice.metrics}, so that YAML key reached the transport.
     */
    private static void consumerMeters(String line) {
        boolean tags = line.contains("tag(application.name=greeter-consumer)")
                && line.contains("tag(interface=dev.sluice.examples.springboot.api.Greeter)")
                && line.contains("tag(group=)") && line.contains("tag(version=)") && line.contains("tag(side=client)");
        boolean counted = line.contains(" count=" + NAMES.size() + ";");
        Matcher frames = Pattern.compile("frames sent by transport 'greeter-consumer' (\\d+)$").matcher(line);
        boolean sent = frames.find() && Long.parseLong(frames.group(1)) >= NAMES.size();
        Scenario.check("consumer-meters", tags && counted && sent, "consumer printed: '" + line + "'");
    }

    /**
     * The provider's {@code /actuator/prometheus} (Spring Boot's registry, which Sluice's global-registry meters join)
     * and {@code /actuator/health}: Sluice's call timer with Dubbo's tag keys, its transport meters under the name
     * application.yml sets in {@code dubbo.protocol.parameters.sluice.metrics}, with no base unit doubled in a name,
     * the stalled-connection and pending-bytes gauges, and the relocated Netty's loops and allocator under
     * Micrometer's Netty meter names.
     */
    private static void prometheus(int httpPort) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                + "/actuator/health")).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        Scenario.check("provider-health", health.statusCode() == 200 && health.body().contains("\"UP\""),
                "/actuator/health: " + health.statusCode() + " " + health.body());
        HttpResponse<String> scrape = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                        + "/actuator/prometheus")).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        List<String> lines = scrape.body().lines().filter(l -> !l.startsWith("#")).toList();
        List<String> problems = new ArrayList<>();
        if (scrape.statusCode() != 200) {
            problems.add("status " + scrape.statusCode());
        }
        String calls = sample(lines, problems, "sluice_calls_seconds_count{", "side=\"server\"",
                "interface=\"dev.sluice.examples.springboot.api.Greeter\"", "method=\"greet\"", "group=\"\"",
                "version=\"\"", "application_name=\"greeter-provider\"", "outcome=\"success\"");
        if (calls != null && value(calls) != NAMES.size()) {
            problems.add("server calls counted " + calls);
        }
        String frames = sample(lines, problems, "sluice_transport_frames_received_total{",
                "transport=\"greeter-provider\"");
        if (frames != null && value(frames) < NAMES.size()) {
            problems.add("frames received " + frames);
        }
        sample(lines, problems, "sluice_transport_data_received_bytes_total{", "transport=\"greeter-provider\"");
        sample(lines, problems, "sluice_transport_connections_stalled{", "transport=\"greeter-provider\"");
        sample(lines, problems, "sluice_transport_write_pending_bytes{", "transport=\"greeter-provider\"");
        sample(lines, problems, "netty_eventexecutor_tasks_pending{", "name=\"sluice-server-");
        sample(lines, problems, "netty_allocator_memory_used_bytes{", "allocator_type=\"PooledByteBufAllocator\"",
                "memory_type=\"direct\"");
        List<String> doubled = lines.stream().filter(l -> l.startsWith("sluice_"))
                .filter(l -> l.matches("^\\w*_(bytes|seconds)_\\w*_(bytes|seconds)(_total|_count|_sum|_max)?[{ ].*"))
                .toList();
        if (!doubled.isEmpty()) {
            problems.add("a base unit twice in a name: " + doubled);
        }
        report("provider-prometheus", problems, "sluiceSamples", lines.stream().filter(l -> l.startsWith("sluice_"))
                .count());
    }

    /**
     * The provider's application.yml limits connections from one address to 20
     * ({@code dubbo.protocol.parameters.sluice.max-connections-per-address}): once the consumer's connection is gone,
     * 21 connections from here leave exactly one refused (closed as accepted) and 20 open, and the provider logs the
     * refusal naming that key. Sockets are read with a short timeout: a timeout means open, end of stream refused.
     */
    private static void connectionLimit(ExampleProcess provider, String host, int port, int httpPort)
            throws Exception {
        String open = "sluice_transport_connections{transport=\"greeter-provider\"}";
        awaitSample(httpPort, open, 0);
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 21; i++) {
                Socket s = new Socket(host, port);
                s.setSoTimeout(100);
                sockets.add(s);
            }
            int refused = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            List<Socket> undecided = new ArrayList<>(sockets);
            while (refused == 0 && System.nanoTime() < deadline) {
                for (java.util.Iterator<Socket> it = undecided.iterator(); it.hasNext(); ) {
                    try {
                        if (it.next().getInputStream().read() < 0) {
                            refused++;
                            it.remove();
                        }
                    } catch (SocketTimeoutException e) {
                        // still open
                    } catch (IOException e) {
                        refused++; // reset as it was closed
                        it.remove();
                    }
                }
            }
            double admitted = awaitSample(httpPort, open, 20);
            boolean logged = provider.printed("Raise the sluice.max-connections-per-address URL key");
            Scenario.check("provider-connection-limit", refused == 1 && admitted == 20 && logged,
                    refused + " of 21 connections refused, " + admitted + " open, refusal logged naming the key: "
                            + logged);
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    /** Scrapes until the sample {@code name} reads {@code expected} (at most 20 s); returns its last value. */
    private static double awaitSample(int httpPort, String name, double expected) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        double last = Double.NaN;
        do {
            String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                    + "/actuator/prometheus")).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            for (String l : body.lines().toList()) {
                if (l.startsWith(name + " ")) {
                    last = value(l);
                }
            }
            if (last == expected) {
                return last;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // a poll of the provider's report, not a sync
        } while (System.nanoTime() < deadline);
        return last;
    }

    /** The first sample line starting with {@code prefix} that has every label; else a problem, and null. */
    private static String sample(List<String> lines, List<String> problems, String prefix, String... labels) {
        for (String l : lines) {
            if (l.startsWith(prefix) && Stream.of(labels).allMatch(l::contains)) {
                return l;
            }
        }
        problems.add("no sample " + prefix + String.join(",", labels) + "...}");
        return null;
    }

    private static double value(String sample) {
        return Double.parseDouble(sample.substring(sample.lastIndexOf(' ') + 1));
    }

    /** Dubbo's QoS server, on the application's Netty 4.1 in the same JVM as Sluice, answers an HTTP command. */
    private static void dubboNettyServes(int qosPort) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + qosPort
                + "/ls")).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        boolean listed = response.body().contains("dev.sluice.examples.springboot.api.Greeter");
        Scenario.check("provider-dubbo-netty", response.statusCode() == 200 && listed,
                "Dubbo QoS 'ls' on port " + qosPort + ": status " + response.statusCode() + ", body "
                        + response.body());
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
