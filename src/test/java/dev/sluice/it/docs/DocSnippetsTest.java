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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The code in the user-facing pages is the code the build compiles. Every fenced block of {@code README.md} and
 * {@code docs/guide/*.md} is preceded by a marker {@code <!-- snippet: path/in/repo#name -->} and must equal, line
 * for line, the region {@code name} of that file: the lines between {@code tag::name[]} and {@code end::name[]}
 * (written as a comment of the file's language), less their common indentation and any other region's marker
 * lines. A block without a marker, a marker without a block, a missing file or region, or a block that differs
 * from its region fails the test. The regions live in the examples (which {@code ExamplesTest} runs) and in the
 * tests, so a snippet that stops compiling or stops working fails the build too.
 *
 * <p>Also: the {@code .properties} and YAML snippets of every page paste as they read, with a comment on its own
 * line, never after a value (in a {@code .properties} file {@code key=sluice  # providers} sets the value
 * {@code sluice  # providers}).
 *
 * <p>The repository root is {@value #REPO_DIR}, set in this module's pom. Runs on the test thread only.
 */
@Timeout(30)
class DocSnippetsTest {
    static final String REPO_DIR = "sluice.repo.dir";

    private static final Pattern MARKER = Pattern.compile("^<!--\\s*snippet:\\s*(\\S+?)#(\\S+)\\s*-->$");

    /** The repository's root, as integration-tests/pom.xml hands it to surefire. */
    static Path repo() {
        String dir = Objects.requireNonNull(System.getProperty(REPO_DIR),
                () -> "system property " + REPO_DIR + " is not set (integration-tests/pom.xml sets it for surefire)");
        return Paths.get(dir).toAbsolutePath().normalize();
    }

    /** README.md and every page under docs/guide: the pages whose code blocks must come from the build. */
    static List<Path> checkedPages(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        Path guide = root.resolve("docs/guide");
        if (Files.isDirectory(guide)) {
            try (Stream<Path> files = Files.list(guide)) {
                files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        return pages;
    }

    @Test
    void everyCodeBlockOfTheReadmeAndTheGuideIsARegionOfAFileTheBuildUses() throws IOException {
        Path root = repo();
        List<String> problems = new ArrayList<>();
        int blocks = 0;
        for (Path page : checkedPages(root)) {
            blocks += check(root, page, problems);
        }
        assertTrue(blocks >= 4, "README.md has at least the Dubbo switch and the standalone quick start, found "
                + blocks + " code blocks");
        assertEquals("", String.join("\n", problems),
                "code blocks that are not a copy of their region (copy the region into the page, or fix the marker)");
    }

    /** The checker itself: a block that drifts from its region, and a block without a marker, are reported. */
    @Test
    void aDriftedBlockAndAnUnmarkedBlockAreReported(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("src"));
        Files.writeString(root.resolve("src/Example.java"), String.join("\n",
                "class Example {",
                "    void run() {",
                "        // tag::call[]",
                "        client.call(1);",
                "        // end::call[]",
                "    }",
                "}", ""));
        String same = "<!-- snippet: src/Example.java#call -->\n```java\nclient.call(1);\n```\n";
        String drifted = "<!-- snippet: src/Example.java#call -->\n```java\nclient.call(2);\n```\n";
        String unmarked = "Text.\n\n```java\nclient.call(1);\n```\n";
        String missing = "<!-- snippet: src/Example.java#nothing -->\n```java\nclient.call(1);\n```\n";

        assertEquals(List.of(), problems(root, same));
        List<String> found = problems(root, drifted);
        assertEquals(1, found.size(), found::toString);
        assertTrue(found.get(0).contains("differs from src/Example.java#call"), found::toString);
        found = problems(root, unmarked);
        assertEquals(1, found.size(), found::toString);
        assertTrue(found.get(0).contains("has no snippet marker"), found::toString);
        found = problems(root, missing);
        assertEquals(1, found.size(), found::toString);
        assertTrue(found.get(0).contains("no region 'nothing'"), found::toString);
    }

    private static List<String> problems(Path root, String readme) throws IOException {
        Path page = root.resolve("README.md");
        Files.writeString(page, readme);
        List<String> problems = new ArrayList<>();
        check(root, page, problems);
        return problems;
    }

    /** Checks one page's code blocks against their regions; returns how many blocks it has. */
    static int check(Path root, Path page, List<String> problems) throws IOException {
        List<String> lines = Files.readAllLines(page);
        String name = root.relativize(page).toString();
        int blocks = 0;
        String pendingMarker = null;
        int markerLine = 0;
        for (int i = 0; i < lines.size(); i++) {
            String trimmed = lines.get(i).trim();
            Matcher marker = MARKER.matcher(trimmed);
            if (marker.matches()) {
                if (pendingMarker != null) {
                    problems.add(name + ":" + markerLine + ": snippet marker not followed by a code block");
                }
                pendingMarker = trimmed;
                markerLine = i + 1;
            } else if (trimmed.startsWith("```")) {
                int open = i;
                List<String> body = new ArrayList<>();
                i++;
                while (i < lines.size() && !lines.get(i).trim().startsWith("```")) {
                    body.add(lines.get(i));
                    i++;
                }
                blocks++;
                if (pendingMarker == null) {
                    problems.add(name + ":" + (open + 1) + ": code block has no snippet marker "
                            + "(<!-- snippet: path/in/repo#region --> on the line before it)");
                } else {
                    Matcher m = MARKER.matcher(pendingMarker);
                    m.matches();
                    compare(root, name, open + 1, m.group(1), m.group(2), body, problems);
                }
                pendingMarker = null;
            } else if (!trimmed.isEmpty() && pendingMarker != null) {
                problems.add(name + ":" + markerLine + ": snippet marker not followed by a code block");
                pendingMarker = null;
            }
        }
        if (pendingMarker != null) {
            problems.add(name + ":" + markerLine + ": snippet marker not followed by a code block");
        }
        return blocks;
    }

    private static void compare(Path root, String page, int line, String file, String region, List<String> block,
            List<String> problems) throws IOException {
        Path source = root.resolve(file).normalize();
        if (!source.startsWith(root) || !Files.isRegularFile(source)) {
            problems.add(page + ":" + line + ": snippet file " + file + " does not exist in the repository");
            return;
        }
        List<String> wanted = region(Files.readAllLines(source), region);
        if (wanted == null) {
            problems.add(page + ":" + line + ": " + file + " has no region '" + region
                    + "' (tag::" + region + "[] ... end::" + region + "[])");
            return;
        }
        List<String> got = block.stream().map(DocSnippetsTest::stripTrailing).collect(Collectors.toList());
        if (!got.equals(wanted)) {
            int at = 0;
            while (at < got.size() && at < wanted.size() && got.get(at).equals(wanted.get(at))) {
                at++;
            }
            problems.add(page + ":" + line + ": code block differs from " + file + "#" + region + " at its line "
                    + (at + 1) + ": page has '" + (at < got.size() ? got.get(at) : "<end>") + "', region has '"
                    + (at < wanted.size() ? wanted.get(at) : "<end>") + "'");
        }
    }

    /** The region's lines, without other regions' marker lines, less their common indentation; null if absent. */
    static List<String> region(List<String> source, String name) {
        String start = "tag::" + name + "[]";
        String end = "end::" + name + "[]";
        int from = -1;
        for (int i = 0; i < source.size(); i++) {
            if (source.get(i).contains(start)) {
                from = i + 1;
                break;
            }
        }
        if (from < 0) {
            return null;
        }
        List<String> lines = new ArrayList<>();
        for (int i = from; i < source.size(); i++) {
            String line = source.get(i);
            if (line.contains(end)) {
                int indent = lines.stream().filter(l -> !l.isBlank())
                        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
                return lines.stream().map(l -> l.isBlank() ? "" : stripTrailing(l.substring(indent)))
                        .collect(Collectors.toList());
            }
            if (!line.contains("tag::") && !line.contains("end::")) {
                lines.add(line);
            }
        }
        return null;
    }

    private static String stripTrailing(String line) {
        return line.stripTrailing();
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
        assertTrue(snippets > 0, "README.md has the Dubbo switch as a YAML snippet");
        assertEquals("", trailing.stream().collect(Collectors.joining("\n")),
                "snippet lines with a comment after the value (move each comment to its own line above its key)");
    }
}
