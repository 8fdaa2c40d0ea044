package dev.sluice.codec.dubbo.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The committed seed corpora match what {@link SeedCorpus} generates from the golden vectors, so the fuzz targets
 * start from every captured frame. With {@code -Dsluice.fuzz.writeSeeds=true} it rewrites them first.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SeedCorpusTest {
    private static final Path ROOT = Paths.get("src/test/resources/dev/sluice/codec/dubbo/fuzz");

    @Test
    void committedSeedsAreCurrent() throws IOException {
        if (Boolean.getBoolean("sluice.fuzz.writeSeeds")) {
            SeedCorpus.main(new String[0]);
        }
        assertSame(ROOT.resolve(SeedCorpus.FRAMES_DIR), SeedCorpus.frames());
        assertSame(ROOT.resolve(SeedCorpus.BODIES_DIR), SeedCorpus.bodies());
    }

    private static void assertSame(Path dir, Map<String, byte[]> expected) throws IOException {
        TreeSet<String> committed;
        try (Stream<Path> files = Files.list(dir)) {
            committed = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("seed-"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        String hint = "; regenerate: mvn -B -pl codec-dubbo test -Dtest=SeedCorpusTest -Dsluice.fuzz.writeSeeds=true";
        assertEquals(new TreeSet<>(expected.keySet()), committed, "seed files in " + dir + hint);
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            assertArrayEquals(e.getValue(), Files.readAllBytes(dir.resolve(e.getKey())), e.getKey() + hint);
        }
    }
}
