package dev.sluice.it.reliability;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;

/**
 * Self-signed certificates made with the JDK's own {@code keytool} (no BouncyCastle, no deprecated Netty helper),
 * and JDK-provider TLS contexts from them.
 */
final class TestCerts {
    private static final char[] PASSWORD = "changeit".toCharArray();

    private TestCerts() {
    }

    /** Starts keytool writing {@code dir/alias.p12}: an EC key and a self-signed certificate for {@code san}. */
    static Process generate(Path dir, String alias, String cn, String san) throws Exception {
        Path keytool = Paths.get(System.getProperty("java.home"), "bin", "keytool");
        return new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", alias, "-keyalg", "EC",
                "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", "CN=" + cn, "-ext", "SAN=" + san,
                "-validity", "2", "-storetype", "PKCS12", "-keystore", dir.resolve(alias + ".p12").toString(),
                "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD)))
                .redirectErrorStream(true).redirectOutput(dir.resolve(alias + ".log").toFile()).start();
    }

    static void await(Process keytool) throws Exception {
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IllegalStateException("keytool failed (exit " + (keytool.isAlive() ? "timeout"
                    : keytool.exitValue()) + ")");
        }
    }

    static KeyStore load(Path p12) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, PASSWORD);
        }
        return ks;
    }

    static X509Certificate certificate(Path p12) throws Exception {
        KeyStore ks = load(p12);
        return (X509Certificate) ks.getCertificate(ks.aliases().nextElement());
    }

    static SslContext server(Path p12) throws Exception {
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(load(p12), PASSWORD);
        return SslContextBuilder.forServer(kmf).sslProvider(SslProvider.JDK).build();
    }

    static SslContext clientTrusting(X509Certificate... trusted) throws Exception {
        return SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(trusted).build();
    }
}
