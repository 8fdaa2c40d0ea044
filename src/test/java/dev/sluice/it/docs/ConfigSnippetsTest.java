package dev.sluice.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code .properties} and YAML snippets of {@code README.md} and {@code docs/} paste as they read: a comment
 * stands on its own line, never after a value. In a {@code .properties} file {@code key=sluice  # providers} sets
 * the value {@code sluice  # providers}; YAML would take it, but the snippets keep one form for both. The repository
 * root is {@value #REPO_DIR}, set in this module's pom.
 *
 * <p>Runs on the test thread only.
 */
@Timeout(30)
class ConfigSnippetsTest {
    static final String REPO_DIR = "sluice.repo.dir";

    private static Path repo() {
        String dir = Objects.requireNonNull(System.getProperty(REPO_DIR),
                () -> "system property " + REPO_DIR + " is not set (integration-tests/pom.xml sets it for surefire)");
        return Paths.get(dir).toAbsolutePath().normalize();
    }

    @Test
    void noPropertiesOrYamlSnippetHasACommentAfterAValue() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(repo().resolve("README.md"));
        try (Stream<Path> docs = Files.walk(repo().resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        int snippets = 0;
        List<String> trailing = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            boolean inConfig = false;
            boolean inOther = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                String trimmed = line.trim();
                if (trimmed.startsWith("```")) {
                    if (inConfig || inOther) {
                        inConfig = false;
                        inOther = false;
                    } else {
                        String lang = trimmed.substring(3).trim().toLowerCase(Locale.ROOT);
                        inConfig = lang.equals("properties") || lang.equals("yaml") || lang.equals("yml");
                        inOther = !inConfig;
                        snippets += inConfig ? 1 : 0;
                    }
                } else if (inConfig && !trimmed.isEmpty() && !trimmed.startsWith("#") && trimmed.contains("#")) {
                    trailing.add(repo().relativize(page) + ":" + (i + 1) + ": " + trimmed);
                }
            }
        }
        assertTrue(snippets > 0, "README.md has the Dubbo switch as .properties and YAML snippets");
        assertEquals("", trailing.stream().collect(Collectors.joining("\n")),
                "snippet lines with a comment after the value (move each comment to its own line above its key)");
    }
}
