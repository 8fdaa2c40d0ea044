package dev.sluice.it.reliability;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.EchoService;
import dev.sluice.it.harness.EchoServiceImpl;
import dev.sluice.it.harness.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.SslConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * Child-JVM scenario (run by {@link DubboTlsTest}): TLS configured as a Dubbo 3.3 user configures it, with
 * {@link SslConfig} on the application ({@code DubboBootstrap.ssl}) and PEM files, between real Dubbo 3.3.6 peers
 * on Dubbo's netty4 Transporter and on {@code sluice}. Each peer has its own {@link FrameworkModel}, so each has its
 * own SSL config. Certificates are made here with the JDK's keytool: the provider's names the test address, the
 * consumer has one of its own (Dubbo 3.3's consumer speaks TLS only with a client certificate), and both sides
 * require and check the other's (mutual TLS, as {@code SslConfig} with trust collections on both sides asks).
 *
 * <p>Dubbo 3.3.6's netty4 TLS client creates its engine without the provider's host, and Netty 4.2 checks host names
 * by default, so that client fails every handshake ("Hostname or IP address is undefined") unless the JVM runs with
 * {@code -Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE}; {@link DubboTlsTest} sets it, as a Dubbo
 * user on Netty 4.2 must. The {@code sluice} client sets the check on its own engines, so it still checks the name.
 *
 * <p>Results, each {@code ok} with {@code ms} (time of the first call or of the failure):
 * <ul>
 *   <li>{@code netty4-provider.sluice-consumer}: a netty4 TLS provider answers a consumer on {@code client=sluice};
 *       control: a consumer with no SSL config on the same provider is refused;</li>
 *   <li>{@code sluice-provider.netty4-consumer}: a {@code server=sluice} TLS provider answers a netty4 TLS consumer;
 *       control: a {@code client=sluice} consumer with no SSL config is refused;</li>
 *   <li>{@code sluice-provider.sluice-consumer}: both on {@code sluice};</li>
 *   <li>{@code untrusted}: a netty4 provider presenting a certificate the {@code sluice} consumer does not trust:
 *       the reference ({@code check=true}) fails within the connect timeout naming the TLS handshake and the failed
 *       certificate check (PKIX), and a call through a {@code check=false} reference fails fast too.</li>
 * </ul>
 */
public final class DubboTlsScenario {
    /** Call and connect timeout: generous, as the first TLS handshakes of a JVM on a loaded machine are slow. */
    static final int TIMEOUT_MS = 10_000;
    /** A refusal must come well within the timeouts: it is an error, not a wait. */
    static final long FAST_MS = TIMEOUT_MS / 2;
    /** Call timeout of the consumers without SSL config, whose calls must fail. */
    static final int REFUSED_TIMEOUT_MS = 2_000;

    private final String host = Scenario.testAddress();
    private final List<Runnable> stops = new ArrayList<>();
    private Path serverCrt;
    private Path clientCrt;
    private Path rogueCrt;
    private Path elsewhereCrt;

    private DubboTlsScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            DubboPeers.quietDefaults();
            new DubboTlsScenario().run();
        });
    }

    private void run() throws Exception {
        Path dir = Files.createDirectories(Scenario.workDirectory().resolve("certs"));
        Process server = TestCerts.generate(dir, "server", "provider", "ip:" + host + ",dns:localhost");
        Process client = TestCerts.generate(dir, "client", "consumer", "dns:consumer");
        Process rogue = TestCerts.generate(dir, "rogue", "provider", "ip:" + host + ",dns:localhost");
        Process elsewhere = TestCerts.generate(dir, "elsewhere", "provider", "dns:elsewhere.invalid");
        TestCerts.await(server);
        TestCerts.await(client);
        TestCerts.await(rogue);
        TestCerts.await(elsewhere);
        serverCrt = TestCerts.pem(dir.resolve("server.p12"));
        clientCrt = TestCerts.pem(dir.resolve("client.p12"));
        rogueCrt = TestCerts.pem(dir.resolve("rogue.p12"));
        elsewhereCrt = TestCerts.pem(dir.resolve("elsewhere.p12"));
        try {
            netty4ProviderSluiceConsumer();
            sluiceProviderNetty4Consumer();
            sluiceBothEnds();
            untrusted();
            certificateForAnotherHost();
        } finally {
            for (int i = stops.size() - 1; i >= 0; i--) {
                stops.get(i).run();
            }
        }
    }

    private void netty4ProviderSluiceConsumer() {
        int port = provider("netty4", serverCrt);
        long ms = firstCall("sluice", port, consumerSsl(serverCrt));
        Object refused = refused("netty4", port);
        require(refused != null, "the netty4 provider answered a consumer without TLS: the check proves nothing");
        Scenario.ok("netty4-provider.sluice-consumer", "ms", ms, "plainRefused", refused);
    }

    private void sluiceProviderNetty4Consumer() {
        int port = provider("sluice", serverCrt);
        long ms = firstCall("netty4", port, consumerSsl(serverCrt));
        long t0 = System.nanoTime();
        Object refused = refused("sluice", port);
        long refusedMs = millisSince(t0);
        // The provider closes that connection at its first byte; Dubbo's exchange layer (not the transport) keeps
        // the call waiting for its timeout, whichever client it uses, so only the refusal is checked here.
        require(refused != null, "the sluice provider answered a consumer without TLS");
        Scenario.ok("sluice-provider.netty4-consumer", "ms", ms, "plainRefusedMs", refusedMs);
    }

    private void sluiceBothEnds() {
        int port = provider("sluice", serverCrt);
        Scenario.ok("sluice-provider.sluice-consumer", "ms", firstCall("sluice", port, consumerSsl(serverCrt)));
    }

    private void untrusted() {
        int port = provider("netty4", rogueCrt);
        long t0 = System.nanoTime();
        String checked;
        try {
            reference("sluice", port, consumerSsl(serverCrt), true).echo("never");
            throw new AssertionError("a provider with an untrusted certificate was called");
        } catch (RuntimeException e) {
            checked = chain(e);
        }
        long checkedMs = millisSince(t0);
        require(checked.contains("TLS handshake") && checked.contains("PKIX"),
                "the failure does not name the TLS handshake and the certificate: " + checked);
        // No bound on checkedMs: it includes starting the consumer's Dubbo application. A connect that waited for
        // its timeout would say so ("client-side timeout"), not name the handshake.

        EchoService lazy = reference("sluice", port, consumerSsl(serverCrt), false);
        long t1 = System.nanoTime();
        String call;
        try {
            lazy.echo("never");
            throw new AssertionError("a provider with an untrusted certificate was called");
        } catch (RuntimeException e) {
            call = chain(e);
        }
        long callMs = millisSince(t1);
        require(callMs < FAST_MS, "a call to the untrusted provider took " + callMs + " ms to fail: " + call);
        require(call.contains("TLS handshake") && call.contains("PKIX"), "the call's failure does not name the TLS"
                + " handshake and the failed certificate check: " + call);
        Scenario.ok("untrusted", "ms", checkedMs, "callMs", callMs);
        System.out.println("untrusted, check=true: " + checked);
        System.out.println("untrusted, check=false: " + call);
    }

    /**
     * A trusted certificate that does not name the provider's address: accepted by default, as Dubbo's own TLS
     * client accepts it; refused, naming the host name, when the reference sets {@code sluice.tls.verify-hostname}.
     */
    private void certificateForAnotherHost() {
        int port = provider("sluice", elsewhereCrt);
        long ms = firstCall("sluice", port, consumerSsl(elsewhereCrt));
        String refused;
        try {
            reference("sluice", port, consumerSsl(elsewhereCrt), true, TIMEOUT_MS,
                    Map.of("sluice.tls.verify-hostname", "true")).echo("never");
            throw new AssertionError("sluice.tls.verify-hostname=true accepted a certificate for another host");
        } catch (RuntimeException e) {
            refused = chain(e);
        }
        require(refused.contains("TLS handshake") && refused.contains(host), "the refusal does not name the"
                + " handshake and the address the certificate lacks: " + refused);
        Scenario.ok("another-host", "ms", ms);
        System.out.println("another host, verify-hostname=true: " + refused);
    }

    /** Starts a TLS provider of {@link EchoService} on {@code server=transporter} presenting {@code certificate}. */
    private int provider(String transporter, Path certificate) {
        int port = DubboPeers.freePort();
        ProtocolConfig protocol = DubboPeers.dubboProtocol(port);
        protocol.setServer(transporter);
        // tag::tls-provider[]
        SslConfig ssl = new SslConfig();
        ssl.setServerKeyCertChainPath(certificate.toString());
        ssl.setServerPrivateKeyPath(key(certificate).toString());
        ssl.setServerTrustCertCollectionPath(clientCrt.toString());
        // end::tls-provider[]
        ServiceConfig<EchoService> service = DubboPeers.service(EchoService.class, new EchoServiceImpl());
        FrameworkModel model = new FrameworkModel();
        DubboBootstrap boot = DubboBootstrap.newInstance(model)
                .application(DubboPeers.application("tls-provider-" + transporter))
                .registry(DubboPeers.noRegistry())
                .ssl(ssl)
                .protocol(protocol)
                .service(service)
                .start();
        stops.add(() -> {
            boot.stop();
            model.destroy();
        });
        return port;
    }

    /** The consumer's SSL config: its own certificate, trusting {@code trusted}. */
    private SslConfig consumerSsl(Path trusted) {
        // tag::tls-consumer[]
        SslConfig ssl = new SslConfig();
        ssl.setClientKeyCertChainPath(clientCrt.toString());
        ssl.setClientPrivateKeyPath(key(clientCrt).toString());
        ssl.setClientTrustCertCollectionPath(trusted.toString());
        // end::tls-consumer[]
        return ssl;
    }

    /** A consumer on {@code client=transporter} with {@code ssl} (null: none) and its reference to {@code port}. */
    private EchoService reference(String transporter, int port, SslConfig ssl, boolean check) {
        return reference(transporter, port, ssl, check, TIMEOUT_MS);
    }

    private EchoService reference(String transporter, int port, SslConfig ssl, boolean check, int timeoutMillis) {
        return reference(transporter, port, ssl, check, timeoutMillis, Map.of());
    }

    private EchoService reference(String transporter, int port, SslConfig ssl, boolean check, int timeoutMillis,
                                  Map<String, String> parameters) {
        ReferenceConfig<EchoService> reference = DubboPeers.reference(EchoService.class, host, port, timeoutMillis);
        reference.setClient(transporter);
        reference.setCheck(check);
        Map<String, String> all = new HashMap<>(parameters);
        all.put("connect.timeout", Integer.toString(TIMEOUT_MS));
        reference.setParameters(all);
        FrameworkModel model = new FrameworkModel();
        DubboBootstrap boot = DubboBootstrap.newInstance(model)
                .application(DubboPeers.application("tls-consumer-" + transporter))
                .registry(DubboPeers.noRegistry());
        if (ssl != null) {
            boot.ssl(ssl);
        }
        stops.add(() -> {
            boot.stop();
            model.destroy();
        });
        boot.reference(reference).start();
        return reference.get();
    }

    private long firstCall(String transporter, int port, SslConfig ssl) {
        EchoService echo = reference(transporter, port, ssl, false);
        long t0 = System.nanoTime();
        String answer = echo.echo("over tls");
        long ms = millisSince(t0);
        require("over tls".equals(answer), "echo answered " + answer);
        for (int i = 0; i < 20; i++) {
            require(("call " + i).equals(echo.echo("call " + i)), "call " + i);
        }
        return ms;
    }

    /** A consumer without SSL config calls {@code port}: returns its failure, or null if it was answered. */
    private Object refused(String transporter, int port) {
        try {
            // A short timeout: Dubbo's exchange layer keeps this call waiting for it after the provider has closed.
            reference(transporter, port, null, false, REFUSED_TIMEOUT_MS).echo("plain");
            return null;
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    private static Path key(Path crt) {
        return crt.resolveSibling(crt.getFileName().toString().replaceFirst("\\.crt$", ".key"));
    }

    private static String chain(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            sb.append(c).append(" | ");
        }
        return sb.toString();
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    private static long millisSince(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }
}
