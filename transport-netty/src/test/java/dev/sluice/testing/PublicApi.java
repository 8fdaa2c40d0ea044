package dev.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.Internal;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The public API of one Sluice artifact, and the check that keeps it deliberate: every public top-level type of the
 * artifact that is neither in an {@code internal} package nor marked {@link Internal} must be listed in the
 * artifact's {@code public-api.txt} (a test resource beside its {@code PublicApiTest}), and every listed type must
 * be such a type. A new public type thus fails the build until someone decides what it is: API (list it), or
 * public only for another Sluice module (move it to an {@code internal} package, or mark it {@code @Internal}).
 *
 * <p>Runs on the JUnit thread.
 */
public final class PublicApi {
    private PublicApi() {
    }

    /**
     * The API types of the artifact holding {@code anchor} (the classes directory or jar it was loaded from): its
     * public top-level types outside {@code internal} packages and not marked {@link Internal}.
     */
    public static SortedSet<String> of(Class<?> anchor) throws IOException, ClassNotFoundException {
        SortedSet<String> api = new TreeSet<>();
        for (String name : classNames(anchor)) {
            Class<?> type = Class.forName(name, false, anchor.getClassLoader());
            boolean internalPackage = Arrays.asList(type.getPackageName().split("\\.")).contains("internal");
            boolean marked = type.isAnnotationPresent(Internal.class);
            if (Modifier.isPublic(type.getModifiers()) && !internalPackage && !marked) {
                api.add(name);
            }
        }
        return api;
    }

    /** The types listed in {@code list} (one fully qualified name a line; blank lines and {@code #} comments). */
    public static SortedSet<String> listed(InputStream list) throws IOException {
        SortedSet<String> names = new TreeSet<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(list, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String name = line.strip();
                if (!name.isEmpty() && !name.startsWith("#")) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /**
     * Fails unless the API of the artifact holding {@code anchor} is exactly what {@code test}'s
     * {@code public-api.txt} lists; the message names each type to decide on.
     */
    public static void assertListed(Class<?> anchor, Class<?> test) throws IOException, ClassNotFoundException {
        InputStream list = test.getResourceAsStream("public-api.txt");
        assertTrue(list != null, "no public-api.txt beside " + test.getName());
        SortedSet<String> listed = listed(list);
        SortedSet<String> api = of(anchor);
        SortedSet<String> unlisted = new TreeSet<>(api);
        unlisted.removeAll(listed);
        SortedSet<String> stale = new TreeSet<>(listed);
        stale.removeAll(api);
        assertTrue(unlisted.isEmpty() && stale.isEmpty(), "public API of " + location(anchor) + " differs from "
                + test.getPackageName().replace('.', '/') + "/public-api.txt. Public types not listed " + unlisted
                + ": list each one that applications may use, move the others to an internal package or mark them"
                + " @dev.sluice.transport.Internal. Listed but not API " + stale + ": remove them from the list");
    }

    private static List<String> classNames(Class<?> anchor) throws IOException {
        Path root = location(anchor);
        List<String> paths = new ArrayList<>();
        if (Files.isDirectory(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(Files::isRegularFile).forEach(f -> paths.add(root.relativize(f).toString()));
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                jar.stream().forEach(e -> paths.add(e.getName()));
            }
        }
        List<String> names = new ArrayList<>();
        for (String path : paths) {
            String name = path.replace('\\', '/');
            if (name.endsWith(".class") && !name.contains("$") && !name.endsWith("package-info.class")
                    && !name.endsWith("module-info.class")) {
                names.add(name.substring(0, name.length() - ".class".length()).replace('/', '.'));
            }
        }
        return names;
    }

    private static Path location(Class<?> anchor) {
        try {
            return Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the classes of " + anchor.getName(), e);
        }
    }
}
