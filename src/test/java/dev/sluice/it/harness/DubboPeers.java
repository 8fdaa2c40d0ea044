package dev.sluice.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;

/**
 * Configuration for real Dubbo 3.3.6 peers in a child-JVM scenario, set up like dubbo-benchmark's fastjson2 variant
 * (docs/wire-format.md §9.3): protocol {@code dubbo}, {@code serialization=fastjson2}, {@code server=netty4} /
 * {@code client=netty4}, registry {@code N/A}, direct URLs. Quiet and quick: no QoS server, no metadata report or
 * MetadataService export, no file caches, no startup checks, a short shutdown wait, Dubbo's own log at WARN.
 *
 * <p>Runs in the child JVM (see {@link IsolatedJvm}); call {@link #quietDefaults()} before touching any Dubbo class.
 */
public final class DubboPeers {
    private DubboPeers() {}

    /**
     * Sets system properties that make Dubbo quiet and quick; values already set (e.g. by {@code -D} flags) win.
     * Also points {@code user.home} at a directory of this run, so Dubbo's {@code ~/.dubbo} caches stay out of the
     * real home directory.
     */
    public static void quietDefaults() {
        Map<String, String> defaults = Map.of(
                "dubbo.application.qos-enable", "false",
                "dubbo.application.logger", "slf4j",
                "dubbo.service.shutdown.wait", "500",
                "org.slf4j.simpleLogger.log.org.apache.dubbo", "warn",
                "org.slf4j.simpleLogger.showDateTime", "true",
                "org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        defaults.forEach((k, v) -> {
            if (System.getProperty(k) == null) {
                System.setProperty(k, v);
            }
        });
        if (System.getProperty(IsolatedJvm.WORKDIR_PROPERTY) != null) {
            Path home = Scenario.workDirectory().resolve("home");
            try {
                Files.createDirectories(home);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            System.setProperty("user.home", home.toString());
        }
    }

    /**
     * A port that was free a moment ago: Dubbo cannot bind port 0, so bind an ephemeral port on the wildcard
     * address, close it and hand out its number. Inside the private namespace nothing else competes for it.
     */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ApplicationConfig application(String name) {
        ApplicationConfig app = new ApplicationConfig(name);
        app.setQosEnable(false);
        app.setLogger("slf4j");
        // Interface-level registration: no instance registration and no extra MetadataService export on a second
        // port (nothing would query it with registry N/A). No ~/.dubbo cache files either.
        app.setRegisterMode("interface");
        app.setEnableFileCache(false);
        return app;
    }

    public static RegistryConfig noRegistry() {
        return new RegistryConfig(RegistryConfig.NO_AVAILABLE);
    }

    /** Protocol {@code dubbo} on {@code port}, fastjson2, Netty 4 server. No host: the server binds the wildcard. */
    public static ProtocolConfig dubboProtocol(int port) {
        ProtocolConfig protocol = new ProtocolConfig("dubbo", port);
        protocol.setSerialization("fastjson2");
        protocol.setServer("netty4");
        return protocol;
    }

    /**
     * Two protocols {@code dubbo} on two free ports, for a provider that exports in both serializations: first
     * {@link #dubboProtocol} (fastjson2, id {@code dubbo-fastjson2}), then one left at Dubbo 3.3's default
     * serialization, hessian2 (Netty 4 server, id {@code dubbo-hessian2}).
     */
    public static List<ProtocolConfig> fastjson2AndHessian2() {
        int fastjson2Port = freePort();
        int hessian2Port = freePort();
        while (hessian2Port == fastjson2Port) {
            hessian2Port = freePort();
        }
        ProtocolConfig fastjson2 = dubboProtocol(fastjson2Port);
        fastjson2.setId("dubbo-fastjson2");
        ProtocolConfig hessian2 = new ProtocolConfig("dubbo", hessian2Port); // Dubbo 3.3's defaults: hessian2
        hessian2.setServer("netty4");
        hessian2.setId("dubbo-hessian2");
        return List.of(fastjson2, hessian2);
    }

    public static <T> ServiceConfig<T> service(Class<T> type, T impl) {
        ServiceConfig<T> service = new ServiceConfig<>();
        service.setInterface(type);
        service.setRef(impl);
        return service;
    }

    /**
     * A direct (registry-less) reference to {@code dubbo://host:port?serialization=fastjson2} over the Netty 4
     * client; {@code scope=remote}, so it never short-cuts to an in-JVM export of the same service. Give
     * {@link Scenario#testAddress()} as host: Dubbo rewrites a loopback host (§9.11).
     */
    public static <T> ReferenceConfig<T> reference(Class<T> type, String host, int port, int timeoutMillis) {
        ReferenceConfig<T> reference = new ReferenceConfig<>();
        reference.setInterface(type);
        reference.setUrl(consumerUrl(host, port));
        reference.setClient("netty4");
        reference.setCheck(false);
        reference.setScope("remote");
        reference.setTimeout(timeoutMillis);
        reference.setRetries(0);
        return reference;
    }

    public static String consumerUrl(String host, int port) {
        return "dubbo://" + host + ":" + port + "?serialization=fastjson2";
    }
}
