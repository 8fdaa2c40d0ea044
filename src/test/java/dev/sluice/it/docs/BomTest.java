package dev.sluice.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The release shape: {@code bom/pom.xml} (artifact {@code sluice-bom}) manages exactly the modules the build
 * publishes (every jar module of the reactor that does not set {@code maven.deploy.skip}), each at
 * {@code ${project.version}}, and has the build's version; every module of the build carries that version; the
 * Download coordinates the README copies (the Spring Boot example's BOM import, {@code examples/gradle/build.gradle})
 * name the BOM's modules at that version. Runs on the test thread only.
 */
@Timeout(30)
class BomTest {
    private static final String GROUP = "dev.sluice";
    private static final Pattern GRADLE_COORDINATE = Pattern.compile("'" + Pattern.quote(GROUP)
            + ":([A-Za-z0-9_.-]+)(?::([A-Za-z0-9_.-]+))?'");

    @Test
    void theBomManagesEveryPublishedModuleAtTheBuildsVersion() throws Exception {
        Path root = DocSnippetsTest.repo();
        assertEquals("", String.join("\n", problems(root)), "the BOM (bom/pom.xml) and the published modules");
        assertEquals(Set.of("sluice-dubbo", "sluice-rpc", "sluice-transport-netty", "sluice-codec-dubbo"),
                published(root, new ArrayList<>()), "the modules the build publishes");
    }

    @Test
    void theDownloadCoordinatesAreTheBomsModulesAtTheBuildsVersion() throws Exception {
        Path root = DocSnippetsTest.repo();
        String version = text(pom(root), "version");
        Set<String> managed = managed(pom(root.resolve("bom")), new ArrayList<>());

        Element example = pom(root.resolve("examples/spring-boot-dubbo"));
        Element bomImport = null;
        for (Element d : children(child(child(example, "dependencyManagement"), "dependencies"), "dependency")) {
            if ("sluice-bom".equals(text(d, "artifactId"))) {
                bomImport = d;
            }
        }
        assertTrue(bomImport != null, "the Spring Boot example imports sluice-bom");
        assertEquals(version, text(bomImport, "version"), "the Spring Boot example's sluice-bom version");
        assertEquals("import", text(bomImport, "scope"));

        String gradle = Files.readString(root.resolve("examples/gradle/build.gradle"));
        Matcher m = GRADLE_COORDINATE.matcher(gradle);
        int found = 0;
        boolean platform = false;
        while (m.find()) {
            found++;
            if ("sluice-bom".equals(m.group(1))) {
                platform = true;
                assertEquals(version, m.group(2), "examples/gradle/build.gradle: " + m.group());
            } else {
                assertTrue(managed.contains(m.group(1)), "examples/gradle/build.gradle names " + m.group(1)
                        + ", which sluice-bom does not manage " + managed);
                assertEquals(null, m.group(2), "examples/gradle/build.gradle: the BOM gives " + m.group(1)
                        + " its version");
            }
        }
        assertTrue(platform && found >= 2, "examples/gradle/build.gradle imports the BOM and adds a module");
    }

    /** The checker itself: a published module the BOM does not list, and a BOM at another version, are reported. */
    @Test
    void aPublishedModuleMissingFromTheBomIsReported(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("pom.xml"), project("sluice-parent", "1.2.3", "pom",
                "<modules><module>bom</module><module>a</module><module>b</module><module>tests</module></modules>"));
        module(root, "bom", project("sluice-bom", "1.2.3", "pom", "<dependencyManagement><dependencies>"
                + managedDependency("sluice-a") + "</dependencies></dependencyManagement>"));
        module(root, "a", child("sluice-a", "1.2.3", ""));
        module(root, "tests", child("sluice-tests", "1.2.3",
                "<properties><maven.deploy.skip>true</maven.deploy.skip></properties>"));
        module(root, "b", child("sluice-b", "1.2.3", ""));
        List<String> found = problems(root);
        assertEquals(List.of("published module sluice-b is missing from bom/pom.xml"), found);

        module(root, "bom", project("sluice-bom", "1.2.4", "pom", "<dependencyManagement><dependencies>"
                + managedDependency("sluice-a") + managedDependency("sluice-b")
                + "</dependencies></dependencyManagement>"));
        found = problems(root);
        assertEquals(1, found.size(), found::toString);
        assertTrue(found.get(0).contains("1.2.4"), found::toString);
        assertFalse(found.get(0).contains("missing"), found::toString);
    }

    /** What is wrong with the BOM against the reactor under {@code root}; empty when nothing is. */
    static List<String> problems(Path root) throws Exception {
        List<String> problems = new ArrayList<>();
        String version = text(pom(root), "version");
        Set<String> published = published(root, problems);
        Element bom = pom(root.resolve("bom"));
        if (!version.equals(text(bom, "version"))) {
            problems.add("bom/pom.xml has version " + text(bom, "version") + ", the build " + version);
        }
        Set<String> managed = managed(bom, problems);
        for (String artifact : published) {
            if (!managed.contains(artifact)) {
                problems.add("published module " + artifact + " is missing from bom/pom.xml");
            }
        }
        for (String artifact : managed) {
            if (!published.contains(artifact)) {
                problems.add("bom/pom.xml manages " + artifact + ", which the build does not publish");
            }
        }
        return problems.stream().distinct().toList();
    }

    /** The artifacts of the reactor's published jar modules; every module's version mismatch goes to problems. */
    static Set<String> published(Path root, List<String> problems) throws Exception {
        Set<String> published = new TreeSet<>();
        String version = text(pom(root), "version");
        walk(root, root, version, false, published, problems);
        return published;
    }

    private static void walk(Path root, Path dir, String version, boolean inheritedSkip, Set<String> published,
            List<String> problems) throws Exception {
        Element pom = pom(dir);
        String where = root.relativize(dir.resolve("pom.xml")).toString();
        Element parent = child(pom, "parent");
        String own = text(pom, "version");
        String effective = own != null ? own : parent == null ? null : text(parent, "version");
        if (!version.equals(effective)) {
            problems.add(where + " has version " + effective + ", the build " + version);
        }
        boolean skip = inheritedSkip;
        Element properties = child(pom, "properties");
        String deploySkip = properties == null ? null : text(properties, "maven.deploy.skip");
        if (deploySkip != null) {
            skip = Boolean.parseBoolean(deploySkip);
        }
        String packaging = text(pom, "packaging");
        if (!skip && (packaging == null || "jar".equals(packaging))) {
            published.add(text(pom, "artifactId"));
        }
        Element modules = child(pom, "modules");
        if (modules != null) {
            for (Element module : children(modules, "module")) {
                walk(root, dir.resolve(module.getTextContent().trim()), version, skip, published, problems);
            }
        }
    }

    private static Set<String> managed(Element bom, List<String> problems) {
        Set<String> managed = new TreeSet<>();
        Element dependencies = child(child(bom, "dependencyManagement"), "dependencies");
        for (Element d : children(dependencies, "dependency")) {
            if (GROUP.equals(text(d, "groupId"))) {
                managed.add(text(d, "artifactId"));
                if (!"${project.version}".equals(text(d, "version"))) {
                    problems.add("bom/pom.xml: " + text(d, "artifactId") + " at " + text(d, "version")
                            + " instead of ${project.version}");
                }
            }
        }
        return managed;
    }

    private static Element pom(Path dir) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = factory.newDocumentBuilder().parse(dir.resolve("pom.xml").toFile());
        return doc.getDocumentElement();
    }

    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        if (parent == null) {
            return found;
        }
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && name.equals(e.getTagName())) {
                found.add(e);
            }
        }
        return found;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().trim();
    }

    private static void module(Path root, String name, String pom) throws IOException {
        Files.createDirectories(root.resolve(name));
        Files.writeString(root.resolve(name).resolve("pom.xml"), pom);
    }

    private static String project(String artifact, String version, String packaging, String body) {
        return "<project><modelVersion>4.0.0</modelVersion><groupId>dev.sluice</groupId><artifactId>" + artifact
                + "</artifactId><version>" + version + "</version><packaging>" + packaging + "</packaging>" + body
                + "</project>";
    }

    private static String child(String artifact, String parentVersion, String body) {
        return "<project><modelVersion>4.0.0</modelVersion><parent><groupId>dev.sluice</groupId>"
                + "<artifactId>sluice-parent</artifactId><version>" + parentVersion + "</version></parent>"
                + "<artifactId>" + artifact + "</artifactId>" + body + "</project>";
    }

    private static String managedDependency(String artifact) {
        return "<dependency><groupId>dev.sluice</groupId><artifactId>" + artifact
                + "</artifactId><version>${project.version}</version></dependency>";
    }
}
