package dev.sluice.benchmark.targets;

import dev.sluice.benchmark.BenchTarget;
import dev.sluice.benchmark.async.AsyncUserService;
import dev.sluice.benchmark.async.AsyncUserServiceImpl;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ConsumerConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * A real Dubbo 3.3.6 provider and consumer, set up like dubbo-benchmark's fastjson2 and hessian-lite variants
 * (docs/wire-format.md §9.3): dubbo protocol, the serialization named on the protocol and in the consumer's direct URL
 * ({@code serialization=fastjson2} or {@code serialization=hessian2}, Dubbo's default), no registry,
 * {@code filter=-default}, {@code check=false}; plus QoS off and a short shutdown wait. The knobs are the Dubbo
 * {@code Transporter} used on both sides ({@code server=} / {@code client=}), the serialization, the provider's
 * thread model ({@code threadpool=}, {@code dispatcher=}; Dubbo's defaults, {@code fixed} and {@code all}, unless a
 * target names them) and parameters of the consumer config (a lever such as {@code sluice.consumer=fast}); or, with
 * {@link #triple}, Dubbo's triple protocol ({@code tri}) instead of {@code dubbo}, on its own HTTP/2 server and client
 * and in its own default serialization, everything else the same.
 */
public final class DubboTarget implements BenchTarget {

    private static final String SPI = "org.apache.dubbo.remoting.Transporter";
    private static final String THREAD_POOL_SPI = "org.apache.dubbo.common.threadpool.ThreadPool";
    private static final String PROTOCOL_SPI = "org.apache.dubbo.rpc.Protocol";

    private final String name;
    private final String transporter;
    private final String serialization;
    private final String protocol;
    private final String threadpool;
    private final String dispatcher;
    private final String description;
    private final Map<String, String> consumerParameters;

    /**
     * @param serialization Dubbo's name of the serialization, {@code fastjson2} or {@code hessian2}
     */
    public DubboTarget(String name, String transporter, String serialization, String description) {
        this(name, "dubbo", transporter, serialization, null, null, description, Map.of());
    }

    /**
     * @param threadpool the provider's {@code threadpool=} (null: Dubbo's default, {@code fixed})
     * @param dispatcher the provider's {@code dispatcher=} (null: Dubbo's default, {@code all})
     */
    public DubboTarget(String name, String transporter, String serialization, String threadpool, String dispatcher,
            String description) {
        this(name, "dubbo", transporter, serialization, threadpool, dispatcher, description, Map.of());
    }

    /**
     * @param consumerParameters set on the consumer config ({@code parameters}), as an application sets a consumer
     *     key such as {@code sluice.consumer=fast}
     */
    public DubboTarget(String name, String transporter, String serialization, String description,
            Map<String, String> consumerParameters) {
        this(name, "dubbo", transporter, serialization, null, null, description, consumerParameters);
    }

    private DubboTarget(String name, String protocol, String transporter, String serialization, String threadpool,
            String dispatcher, String description, Map<String, String> consumerParameters) {
        this.protocol = protocol;
        this.name = name;
        this.transporter = transporter;
        this.serialization = serialization;
        this.threadpool = threadpool;
        this.dispatcher = dispatcher;
        this.description = description;
        this.consumerParameters = Map.copyOf(consumerParameters);
    }

    /**
     * Dubbo's triple protocol ({@code tri}) serving and calling the same services: no {@code server=}/{@code client=}
     * (triple runs its own HTTP/2 server and client on Netty) and no serialization named anywhere, so each call takes
     * triple's default for a Java interface: its arguments and result serialized by Dubbo's default serialization
     * (hessian2: a consumer with a direct URL names none, and the provider answers in the request's) inside triple's
     * protobuf request and response wrappers, whose {@code serializeType} then reads {@code hessian4} (triple's name
     * for Dubbo's hessian2, hessian-lite).
     */
    public static DubboTarget triple(String name, String description) {
        return new DubboTarget(name, "tri", null, null, null, null, description, Map.of());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    /** The Dubbo {@code Transporter} of both sides; null for triple, which has its own. */
    public String transporter() {
        return transporter;
    }

    /** The serialization named on the protocol and in the URL; null for triple, which names none. */
    public String serialization() {
        return serialization;
    }

    /** Dubbo's protocol name: {@code dubbo} or {@code tri}. */
    public String protocol() {
        return protocol;
    }

    /** The provider's {@code threadpool=}, or null for Dubbo's default. */
    public String threadpool() {
        return threadpool;
    }

    /** The provider's {@code dispatcher=}, or null for Dubbo's default. */
    public String dispatcher() {
        return dispatcher;
    }

    @Override
    public boolean supportsAsync() {
        return true;
    }

    /**
     * Checks the Transporter and ThreadPool SPI files, or for triple the Protocol SPI files (without starting Dubbo);
     * this also proves they survived shading.
     */
    @Override
    public String unavailableReason() {
        String spi = transporter != null ? SPI : PROTOCOL_SPI;
        String wanted = transporter != null ? transporter : protocol;
        Set<String> found = extensionNames(DubboTarget.class.getClassLoader(), spi);
        if (!found.contains(wanted)) {
            return "no Dubbo " + (transporter != null ? "Transporter" : "Protocol") + " named '" + wanted
                    + "' on the classpath (META-INF/dubbo[/internal]/" + spi + " lists " + found + ")";
        }
        Set<String> pools = extensionNames(DubboTarget.class.getClassLoader(), THREAD_POOL_SPI);
        if (threadpool != null && !pools.contains(threadpool)) {
            return "no Dubbo ThreadPool named '" + threadpool + "' on the classpath (META-INF/dubbo[/internal]/"
                    + THREAD_POOL_SPI + " lists " + pools + ")";
        }
        // Without the lever's Protocol wrapper Dubbo ignores the key and the target would measure Dubbo's own path.
        Set<String> protocols = extensionNames(DubboTarget.class.getClassLoader(), PROTOCOL_SPI);
        if (consumerParameters.containsKey("sluice.consumer") && !protocols.contains("sluice-consumer")) {
            return "sluice.consumer is set but no Protocol wrapper named 'sluice-consumer' is on the classpath"
                    + " (META-INF/dubbo[/internal]/" + PROTOCOL_SPI + " lists " + protocols + ")";
        }
        return null;
    }

    /** The Transporter names registered in every Dubbo SPI location visible to {@code loader}. */
    public static Set<String> transporterNames(ClassLoader loader) {
        return extensionNames(loader, SPI);
    }

    /** The names of the extensions of the Dubbo SPI {@code spi} registered in every location {@code loader} sees. */
    public static Set<String> extensionNames(ClassLoader loader, String spi) {
        Set<String> names = new TreeSet<>();
        for (String dir : new String[] {"META-INF/dubbo/internal/", "META-INF/dubbo/", "META-INF/services/"}) {
            try {
                Enumeration<URL> urls = loader.getResources(dir + spi);
                while (urls.hasMoreElements()) {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(urls.nextElement().openStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            int hash = line.indexOf('#');
                            if (hash >= 0) {
                                line = line.substring(0, hash);
                            }
                            int eq = line.indexOf('=');
                            if (eq > 0) {
                                names.add(line.substring(0, eq).trim());
                            }
                        }
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + dir + spi, e);
            }
        }
        return names;
    }

    /** The target's name as Dubbo allows an application name (digits, letters, '-', '_', '.'): '+' becomes '-'. */
    private String appName() {
        return name.replace('+', '-');
    }

    private static ApplicationConfig application(String name) {
        ApplicationConfig app = new ApplicationConfig(name);
        app.setQosEnable(false);
        app.setLogger("slf4j");
        app.setShutwait("500");
        return app;
    }

    /** Calls the benchmark's Dubbo providers queue when their 200 threads are busy. */
    static final int ASYNC_QUEUE = 8192;

    @Override
    public AutoCloseable startServer(String host, int port) {
        ProtocolConfig protocol = new ProtocolConfig(this.protocol, port);
        protocol.setHost(host);
        if (transporter != null) {
            protocol.setServer(transporter);
        }
        if (serialization != null) {
            protocol.setSerialization(serialization);
        }
        // Dubbo's fixed pool of 200 threads with no queue refuses a call when all 200 are busy ("thread pool is
        // EXHAUSTED"): the async loads keep up to 256 calls in flight. A queue behind the same 200 threads, as the
        // Sluice servers have, takes them; the synchronous loads (at most 32 in flight) never reach it.
        protocol.setQueues(ASYNC_QUEUE);
        if (threadpool != null) {
            protocol.setThreadpool(threadpool);
        }
        if (dispatcher != null) {
            protocol.setDispatcher(dispatcher);
        }

        ServiceConfig<UserService> service = new ServiceConfig<>();
        service.setInterface(UserService.class);
        service.setRef(new UserServiceServerImpl());
        service.setFilter("-default");
        ServiceConfig<AsyncUserService> async = new ServiceConfig<>();
        async.setInterface(AsyncUserService.class);
        async.setRef(new AsyncUserServiceImpl());
        async.setFilter("-default");

        DubboBootstrap bootstrap = DubboBootstrap.newInstance();
        bootstrap.application(application("sluice-bench-" + appName() + "-server"))
                .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE))
                .protocol(protocol)
                .service(service)
                .service(async)
                .start(); // synchronous: the port is bound when this returns
        return bootstrap::destroy;
    }

    private <T> ReferenceConfig<T> reference(Class<T> iface, ClientConfig config) {
        ReferenceConfig<T> reference = new ReferenceConfig<>();
        reference.setInterface(iface);
        reference.setCheck(false);
        reference.setTimeout(config.timeoutMillis()); // 1000 = Dubbo's default, what dubbo-benchmark runs with
        reference.setUrl(protocol + "://" + config.host() + ":" + config.port()
                + (serialization == null ? "" : "?serialization=" + serialization));
        return reference;
    }

    private DubboBootstrap consumer(ReferenceConfig<?> reference) {
        ConsumerConfig consumer = new ConsumerConfig();
        if (transporter != null) {
            consumer.setClient(transporter);
        }
        consumer.setFilter("-default");
        if (!consumerParameters.isEmpty()) {
            consumer.setParameters(new java.util.HashMap<>(consumerParameters));
        }
        DubboBootstrap bootstrap = DubboBootstrap.newInstance();
        bootstrap.application(application("sluice-bench-" + appName() + "-client"))
                .consumer(consumer)
                .reference(reference)
                .start();
        return bootstrap;
    }

    @Override
    public Client connect(ClientConfig config) {
        ReferenceConfig<UserService> reference = reference(UserService.class, config);
        DubboBootstrap bootstrap = consumer(reference);
        UserService proxy = reference.get();
        return new Client() {
            @Override
            public UserService service() {
                return proxy;
            }

            @Override
            public void close() {
                bootstrap.destroy();
            }
        };
    }

    /** Dubbo 3.3.6 makes a method declared to return {@code CompletableFuture} an asynchronous call on its own. */
    @Override
    public AsyncClient connectAsync(ClientConfig config) {
        ReferenceConfig<AsyncUserService> reference = reference(AsyncUserService.class, config);
        DubboBootstrap bootstrap = consumer(reference);
        AsyncUserService proxy = reference.get();
        return new AsyncClient() {
            @Override
            public AsyncUserService service() {
                return proxy;
            }

            @Override
            public void close() {
                bootstrap.destroy();
            }
        };
    }
}
