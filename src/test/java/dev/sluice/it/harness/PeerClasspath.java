package dev.sluice.it.harness;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The class path of a peer JVM that runs on another Dubbo's own jars rather than on the test classpath: the jars a
 * {@code dubbo*-classpath} module copied into its {@code target/lib}, then a directory holding only the named test
 * classes (copied from the test classpath), then the named jars of the test classpath. Used in the test JVM; the peer
 * itself is started inside the scenario's network namespace by {@link PeerProcess}.
 */
public final class PeerClasspath {
    private PeerClasspath() {
    }

    /**
     * @param libProperty system property naming the {@code target/lib} directory (set by integration-tests' pom)
     * @param markerJar a jar that must be in it, proving the module was built
     * @param module the module that fills it, for the error message
     * @param classesDir name of the directory under {@code target/} that receives the copied classes
     * @param classes test classes the peer loads, as {@code dev/sluice/...}/{@code Name} (nested classes come along)
     * @param jarPrefixes file-name prefixes of test-classpath jars the peer needs besides {@code lib}
     */
    public static String build(String libProperty, String markerJar, String module, String classesDir,
            List<String> classes, List<String> jarPrefixes) throws IOException {
        String lib = System.getProperty(libProperty);
        Path libDir = lib == null ? null : Paths.get(lib);
        if (libDir == null || !Files.isRegularFile(libDir.resolve(markerJar))) {
            throw new IllegalStateException(markerJar + " is not at " + libProperty + "=" + lib + ": build module "
                    + module + " first (the full build does; or add -am, e.g. mvn -B -pl integration-tests -am "
                    + "verify -Dtest=...)");
        }
        List<String> entries = new ArrayList<>();
        try (Stream<Path> jars = Files.list(libDir)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> entries.add(p.toString()));
        }

        Path target = Paths.get(System.getProperty("basedir", System.getProperty("user.dir")), "target", classesDir);
        deleteTree(target);
        List<String> testClasspath = List.of(IsolatedJvm.testClassPath().split(File.pathSeparator));
        List<String> copied = new ArrayList<>();
        for (String entry : testClasspath) {
            Path source = Paths.get(entry);
            if (Files.isDirectory(source)) {
                try (Stream<Path> files = Files.walk(source)) {
                    for (Path file : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
                        String name = source.relativize(file).toString().replace(File.separatorChar, '/');
                        if (wanted(classes, name)) {
                            copy(Files.newInputStream(file), target.resolve(name));
                            copied.add(name);
                        }
                    }
                }
            } else if (entry.endsWith(".jar") && Files.isRegularFile(source)) {
                try (ZipFile zip = new ZipFile(source.toFile())) {
                    for (ZipEntry e : zip.stream().collect(Collectors.toList())) {
                        if (!e.isDirectory() && wanted(classes, e.getName())) {
                            copy(zip.getInputStream(e), target.resolve(e.getName()));
                            copied.add(e.getName());
                        }
                    }
                }
            }
        }
        for (String wanted : classes) {
            if (!copied.contains(wanted + ".class")) {
                throw new IllegalStateException(wanted + ".class is not on the test classpath " + testClasspath);
            }
        }
        entries.add(target.toString());
        for (String prefix : jarPrefixes) {
            String jar = testClasspath.stream()
                    .filter(e -> Paths.get(e).getFileName().toString().startsWith(prefix) && e.endsWith(".jar"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(prefix + "*.jar is not on the test classpath"));
            entries.add(jar);
        }
        return String.join(File.pathSeparator, entries);
    }

    private static boolean wanted(List<String> classes, String name) {
        if (!name.endsWith(".class")) {
            return false;
        }
        String base = name.substring(0, name.length() - ".class".length());
        for (String c : classes) {
            if (base.equals(c) || base.startsWith(c + "$")) {
                return true;
            }
        }
        return false;
    }

    /** Copies unless an earlier classpath entry already provided {@code target} (the one the JVM would load). */
    private static void copy(InputStream in, Path target) throws IOException {
        try (InputStream source = in) {
            if (Files.exists(target)) {
                return;
            }
            Files.createDirectories(target.getParent());
            Files.copy(source, target);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
    }
}
