package dev.sluice.dubbo;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import javax.net.ssl.SSLException;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.ssl.AuthPolicy;
import org.apache.dubbo.common.ssl.Cert;
import org.apache.dubbo.common.ssl.CertManager;
import org.apache.dubbo.common.ssl.ProviderCert;

/**
 * TLS for the {@code sluice} Transporter, configured the way Dubbo users configure it: the certificates come from
 * Dubbo's {@link CertManager}, which asks the {@code CertProvider} extensions of the URL's framework model (Dubbo's
 * own reads the application's {@code SslConfig}: {@code <dubbo:ssl>}, {@code dubbo.ssl.*},
 * {@code DubboBootstrap.ssl(...)}). The rules follow Dubbo's netty4 transport:
 * <ul>
 *   <li>provider: TLS when the cert manager has a provider certificate (with {@code SslConfig}: both
 *       {@code serverKeyCertChainPath} and {@code serverPrivateKeyPath} set). With a trust collection
 *       ({@code serverTrustCertCollectionPath}) client certificates are required under
 *       {@link AuthPolicy#CLIENT_AUTH} (what {@code SslConfig} gives), optional otherwise;</li>
 *   <li>consumer: TLS when the cert manager has a consumer certificate (with {@code SslConfig}, Dubbo 3.3 asks for
 *       both {@code clientKeyCertChainPath} and {@code clientPrivateKeyPath}); the server is checked against
 *       {@code clientTrustCertCollectionPath}, or the JDK's default trust store when that is absent.</li>
 * </ul>
 * Differences, all stricter: the certificates are read once, when the server binds or the client is created (a
 * renewed certificate applies to servers and clients created afterwards); a provider whose certificate policy is
 * {@link AuthPolicy#NONE} still requires TLS on every connection (Dubbo's netty4 server would also accept plain
 * text there); and the consumer checks that the provider's certificate names the host it dialled (a SAN with the
 * provider's IP address or host name), which Dubbo's netty4 client does not.
 *
 * <p>Stateless; called on the thread that creates the endpoint.
 */
final class DubboTls {
    private DubboTls() {
    }

    /** The server context for {@code url}, or null when Dubbo's cert manager has no provider certificate. */
    static SslContext server(URL url) {
        ProviderCert cert = certManager(url).getProviderConnectionConfig(url, null);
        if (cert == null) {
            return null;
        }
        if (cert.getKeyCertChain() == null || cert.getPrivateKey() == null) {
            throw new IllegalArgumentException("Dubbo's SSL config for the provider on port " + url.getPort()
                    + " has no " + (cert.getKeyCertChain() == null ? "certificate chain (serverKeyCertChainPath)"
                    : "private key (serverPrivateKeyPath)") + "; set both, or neither to serve plain text");
        }
        try {
            SslContextBuilder b = cert.getPassword() == null
                    ? SslContextBuilder.forServer(stream(cert.getKeyCertChain()), stream(cert.getPrivateKey()))
                    : SslContextBuilder.forServer(stream(cert.getKeyCertChain()), stream(cert.getPrivateKey()),
                            cert.getPassword());
            if (cert.getTrustCert() != null) {
                b.trustManager(stream(cert.getTrustCert()));
                b.clientAuth(cert.getAuthPolicy() == AuthPolicy.CLIENT_AUTH ? ClientAuth.REQUIRE
                        : ClientAuth.OPTIONAL);
            }
            return b.build();
        } catch (IllegalArgumentException | SSLException e) {
            throw new IllegalArgumentException("Dubbo's SSL config for the provider on port " + url.getPort()
                    + " could not be used (serverKeyCertChainPath must be X.509 PEM, serverPrivateKeyPath a PKCS#8"
                    + " PEM key, serverTrustCertCollectionPath X.509 PEM): " + e.getMessage(), e);
        }
    }

    /** The client context for {@code url}, or null when Dubbo's cert manager has no consumer certificate. */
    static SslContext client(URL url) {
        Cert cert = certManager(url).getConsumerConnectionConfig(url);
        if (cert == null) {
            return null;
        }
        try {
            SslContextBuilder b = SslContextBuilder.forClient();
            if (cert.getTrustCert() != null) {
                b.trustManager(stream(cert.getTrustCert()));
            }
            if (cert.getKeyCertChain() != null && cert.getPrivateKey() != null) {
                if (cert.getPassword() == null) {
                    b.keyManager(stream(cert.getKeyCertChain()), stream(cert.getPrivateKey()));
                } else {
                    b.keyManager(stream(cert.getKeyCertChain()), stream(cert.getPrivateKey()), cert.getPassword());
                }
            }
            return b.build();
        } catch (IllegalArgumentException | SSLException e) {
            throw new IllegalArgumentException("Dubbo's SSL config for the consumer of " + url.getAddress()
                    + " could not be used (clientKeyCertChainPath must be X.509 PEM, clientPrivateKeyPath a PKCS#8"
                    + " PEM key, clientTrustCertCollectionPath X.509 PEM): " + e.getMessage(), e);
        }
    }

    private static CertManager certManager(URL url) {
        return url.getOrDefaultFrameworkModel().getBeanFactory().getOrRegisterBean(CertManager.class);
    }

    private static InputStream stream(byte[] bytes) {
        return new ByteArrayInputStream(bytes);
    }
}
