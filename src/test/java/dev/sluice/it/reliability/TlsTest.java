package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.ConnectFailedException;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportOptions;
import io.netty.handler.ssl.SslContext;
import java.net.Socket;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/reliability.md F29 on the standalone endpoints with the JDK TLS provider: a TLS call works; a certificate the
 * client does not trust, a certificate for another host name, a TLS client on a plain port and a plain client on
 * a TLS port all fail promptly with an error that says what went wrong, never by timing out.
 */
@Timeout(60)
class TlsTest {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
    @TempDir
    static Path dir;
    private static X509Certificate localhost;
    private static X509Certificate otherHost;
    private static Path localhostStore;
    private static Path otherHostStore;

    @BeforeAll
    static void certificates() throws Exception {
        Process a = TestCerts.generate(dir, "localhost", "localhost", "dns:localhost,ip:127.0.0.1");
        Process b = TestCerts.generate(dir, "other", "other.example", "dns:other.example");
        TestCerts.await(a);
        TestCerts.await(b);
        localhostStore = dir.resolve("localhost.p12");
        otherHostStore = dir.resolve("other.p12");
        localhost = TestCerts.certificate(localhostStore);
        otherHost = TestCerts.certificate(otherHostStore);
    }

    private static SluiceServer server(SslContext tls) {
        SluiceServer.Builder b = SluiceServer.builder().port(0)
                .register(TypesService.class, SluiceAttachments.service());
        return (tls == null ? b : b.tls(tls)).start();
    }

    private static SluiceClient client(int port, SslContext tls) {
        SluiceClient.Builder b = SluiceClient.builder().address("localhost", port).timeout(CALL_TIMEOUT)
                .options(TransportOptions.builder().reconnect(false).build());
        return (tls == null ? b : b.tls(tls)).build();
    }

    /** Runs a call that must fail; returns the error after checking it came well before the call's timeout. */
    private static SluiceException failsPromptly(SluiceClient client) {
        long start = System.nanoTime();
        SluiceException e = assertThrows(SluiceException.class, () -> client.proxy(TypesService.class).echo("x"));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms < CALL_TIMEOUT.toMillis() / 4, "failed at once, not by timeout (" + ms + " ms): " + e);
        System.out.println("TLS failure after " + ms + " ms: " + e);
        return e;
    }

    /** The error text including its causes, which is what a log line or a stack trace shows. */
    private static String story(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t).append(" <- ");
            if (t.getCause() == t) {
                break;
            }
        }
        return b.toString();
    }

    @Test
    void aTlsCallWorks() throws Exception {
        try (SluiceServer server = server(TestCerts.server(localhostStore));
             SluiceClient client = client(server.port(), TestCerts.clientTrusting(localhost))) {
            TypesService s = client.proxy(TypesService.class);
            assertEquals("secret", s.echo("secret"));
            assertEquals(300, s.items(300).size());
        }
    }

    @Test
    void anUntrustedCertificateFailsTheCallWithAHandshakeError() throws Exception {
        try (SluiceServer server = server(TestCerts.server(localhostStore));
             SluiceClient client = client(server.port(), TestCerts.clientTrusting(otherHost))) {
            SluiceException e = failsPromptly(client);
            String story = story(e);
            assertTrue(story.contains("TLS handshake") && story.contains("SSLHandshakeException")
                    && story.contains("certification path"), story);
            // Asked to fail when it cannot connect, the client says so when it is built.
            ConnectFailedException early = assertThrows(ConnectFailedException.class, () -> SluiceClient.builder()
                    .address("localhost", server.port()).tls(TestCerts.clientTrusting(otherHost))
                    .failIfNotConnected(true).build());
            assertInstanceOf(SSLHandshakeException.class, early.getCause(), early::toString);
            try (SluiceClient trusting = client(server.port(), TestCerts.clientTrusting(localhost))) {
                assertEquals("ok", trusting.proxy(TypesService.class).echo("ok"), "the server keeps serving");
            }
        }
    }

    @Test
    void aCertificateForAnotherHostFailsHostnameVerification() throws Exception {
        try (SluiceServer server = server(TestCerts.server(otherHostStore));
             SluiceClient client = client(server.port(), TestCerts.clientTrusting(otherHost))) {
            SluiceException e = failsPromptly(client);
            String story = story(e);
            assertTrue(story.contains("TLS handshake") && story.contains("SSLHandshakeException")
                    && story.contains("No subject alternative DNS name matching localhost"), story);
        }
    }

    @Test
    void aPlainClientOnATlsPortGetsACleanError() throws Exception {
        try (SluiceServer server = server(TestCerts.server(localhostStore));
             SluiceClient plain = client(server.port(), null)) {
            SluiceException e = failsPromptly(plain);
            assertTrue(story(e).contains("closed"), story(e));
        }
        try (SluiceServer server = server(TestCerts.server(localhostStore));
             Socket raw = Fixtures.socket(server.port())) {
            raw.getOutputStream().write(Wire.request(1, TypesService.class, "echo", "plain"));
            assertTrue(Fixtures.readsEndOfStream(raw.getInputStream()), "the TLS server closed the plain connection");
        }
    }

    @Test
    void aTlsClientOnAPlainPortGetsACleanError() throws Exception {
        try (SluiceServer server = server(null);
             SluiceClient client = client(server.port(), TestCerts.clientTrusting(localhost))) {
            SluiceException e = failsPromptly(client);
            String story = story(e);
            assertTrue(story.contains("TLS handshake"), story);
        }
    }
}
