package dev.sluice.it.reliability;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Base64;
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

    /**
     * Writes the key pair of {@code p12} the way Dubbo's {@code SslConfig} reads it: {@code alias.crt} (X.509 PEM)
     * and {@code alias.key} (unencrypted PKCS#8 PEM) next to it; returns the certificate's path.
     */
    static Path pem(Path p12) throws Exception {
        KeyStore ks = load(p12);
        String alias = ks.aliases().nextElement();
        String base = p12.getFileName().toString().replaceFirst("\\.p12$", "");
        Path crt = p12.resolveSibling(base + ".crt");
        Files.writeString(crt, pemBlock("CERTIFICATE", ks.getCertificate(alias).getEncoded()));
        Files.writeString(p12.resolveSibling(base + ".key"),
                pemBlock("PRIVATE KEY", ks.getKey(alias, PASSWORD).getEncoded()));
        return crt;
    }

    private static String pemBlock(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
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
