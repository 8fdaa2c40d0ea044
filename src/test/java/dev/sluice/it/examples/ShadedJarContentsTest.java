package dev.sluice.it.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The published sluice-dubbo jar and sluice-rpc on one class path: sluice-rpc brings sluice-transport-netty and
 * sluice-codec-dubbo, built for the application's {@code io.netty}. Every class of those three jars that the shaded
 * sluice-dubbo jar also holds under the same name must be the same class: its shaded copy names no relocated class
 * ({@code dev/sluice/shaded/...}), so it is the original with at most its constant pool rewritten by the shade
 * plugin. Otherwise whichever jar comes first on the class path decides which one loads, and the other jar's code
 * fails against it (a class built for the relocated Netty, loaded for sluice-rpc, or the reverse). The shaded jar
 * also keeps {@code sluice.jfc} where the observability guide says.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShadedJarContentsTest {
    /** What the shade plugin puts before a relocated name (Netty's, Sluice's transport and codec). */
    private static final byte[] RELOCATED = "dev/sluice/shaded/".getBytes(StandardCharsets.US_ASCII);

    @Test
    void classesSluiceRpcAlsoBringsAreTheSameClassesInTheShadedJar() throws IOException {
        Path shaded = shadedJar();
        List<String> differ = new ArrayList<>();
        int shared = 0;
        try (ZipFile dubbo = new ZipFile(shaded.toFile())) {
            for (String prefix : List.of("sluice-transport-netty-", "sluice-codec-dubbo-", "sluice-rpc-")) {
                try (ZipFile other = new ZipFile(testClasspathJar(prefix).toFile())) {
                    for (ZipEntry e : other.stream().collect(Collectors.toList())) {
                        ZipEntry same = dubbo.getEntry(e.getName());
                        if (!e.getName().endsWith(".class") || same == null) {
                            continue;
                        }
                        shared++;
                        if (contains(read(dubbo, same), RELOCATED) || contains(read(other, e), RELOCATED)) {
                            differ.add(e.getName());
                        }
                    }
                }
            }
            assertTrue(differ.isEmpty(), differ.size() + " classes of " + shaded.getFileName() + " have the name of a "
                    + "class of sluice-rpc's dependencies but name relocated classes: " + differ);
            assertTrue(shared > 0, "the exceptions and JFR events are shared with sluice-transport-netty");
            assertNotNull(dubbo.getEntry("dev/sluice/transport/jfr/sluice.jfc"), "sluice.jfc");
            assertNotNull(dubbo.getEntry("dev/sluice/transport/SluiceException.class"), "the public exceptions");
            assertFalse(dubbo.stream().anyMatch(e -> e.getName().startsWith("io/netty/")), "unrelocated Netty");
        }
    }

    /** The main jar module dubbo built: target/sluice-dubbo-VERSION.jar (no classifier). */
    private static Path shadedJar() throws IOException {
        Path target = Paths.get(Objects.requireNonNull(System.getProperty("sluice.repo.dir"), "sluice.repo.dir"))
                .resolve("dubbo/target");
        try (Stream<Path> files = Files.list(target)) {
            List<Path> jars = files.filter(p -> p.getFileName().toString().matches("sluice-dubbo-[0-9.]+\\.jar"))
                    .collect(Collectors.toList());
            assertEquals(1, jars.size(), "the shaded jar in " + target + ": " + jars);
            return jars.get(0);
        }
    }

    private static Path testClasspathJar(String prefix) {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return Arrays.stream(cp.split(File.pathSeparator)).map(Paths::get)
                .filter(p -> p.getFileName().toString().matches(prefix.replace(".", "\\.") + "[0-9.]+\\.jar"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(prefix + "VERSION.jar is not on the test class path "
                        + cp));
    }

    /** Whether {@code bytes} holds {@code part} (class files keep names as plain UTF-8 in the constant pool). */
    private static boolean contains(byte[] bytes, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= bytes.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static byte[] read(ZipFile zip, ZipEntry entry) throws IOException {
        try (InputStream in = zip.getInputStream(entry)) {
            return in.readAllBytes();
        }
    }
}
