package dev.sluice.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Flight recordings with Sluice's {@code sluice.jfc} (shipped in sluice-transport-netty's jar): the {@code --observe}
 * option (every server and client JVM records its {@code dev.sluice.*} events into the results directory, for the
 * write-batch chart and for JDK Mission Control) and the {@code sluice+jfr} target (the same events on, recorded to
 * JFR's own repository, to measure what they cost). Used by the Runner's thread only.
 */
public final class Observe {
    /** The {@code sluice.jfc} of sluice-transport-netty, which the benchmark jar includes. */
    static final String JFC_RESOURCE = "/dev/sluice/transport/jfr/sluice.jfc";
    private static Path extracted;

    private Observe() {}

    /**
     * The settings file as a file the JVMs can read: the jar's {@code sluice.jfc}, written
     * once per JVM to a temporary file deleted at exit.
     */
    public static synchronized Path jfc() {
        if (extracted == null) {
            try (InputStream in = Observe.class.getResourceAsStream(JFC_RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(JFC_RESOURCE + " is not in the benchmark jar: rebuild it (mvn -pl"
                            + " benchmark -am package, or bench.sh without --no-build)");
                }
                Path p = Files.createTempFile("sluice-", ".jfc");
                p.toFile().deleteOnExit();
                Files.copy(in, p, StandardCopyOption.REPLACE_EXISTING);
                extracted = p;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + JFC_RESOURCE + " to a temporary file: " + e, e);
            }
        }
        return extracted;
    }

    /** Why the JFR settings cannot be used here, or null. */
    public static String unavailableReason() {
        return Observe.class.getResource(JFC_RESOURCE) != null ? null
                : JFC_RESOURCE + " is not in the benchmark jar: rebuild it";
    }

    /**
     * A recording of the whole JVM into directory {@code dir} (JFR names each file after its process), dumped when
     * the JVM exits.
     */
    static List<String> recordInto(Path dir) throws IOException {
        Files.createDirectories(dir);
        return List.of("-XX:StartFlightRecording:settings=" + jfc() + ",filename=" + dir.toAbsolutePath()
                + ",dumponexit=true");
    }

    /**
     * The client JVMs of one target and load: {@code DIR/jfr/<target>/t<threads>/}, or {@code a<threads>x<inflight>}
     * for the asynchronous workload.
     */
    static Path clientDir(Path out, String target, String load) {
        return out.resolve("jfr").resolve(target).resolve(load);
    }

    /** The server JVM of one target: {@code DIR/jfr/<target>/server/}. */
    static Path serverDir(Path out, String target) {
        return out.resolve("jfr").resolve(target).resolve("server");
    }

    /**
     * The events on, kept in JFR's disk repository (bounded, deleted at exit): what a service running with
     * {@code sluice.jfc} pays, without a dump at the end.
     */
    public static List<String> eventsOn() {
        return List.of("-XX:StartFlightRecording:settings=" + jfc() + ",maxsize=100m");
    }
}
