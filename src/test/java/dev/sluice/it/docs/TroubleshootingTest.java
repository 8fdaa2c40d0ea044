package dev.sluice.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.dubbo.SluiceTransporter;
import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.PeerClasspath;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import java.io.File;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The messages quoted in docs/guide/troubleshooting.md are the ones a user meets: each quote (a {@code > } line after
 * {@code <!-- message: id -->}; {@code …} stands for a part that varies) is matched, piece by piece and in order,
 * against the message this test makes the real code produce. Sluice's own errors come from a {@code SluiceServer}
 * and {@code SluiceClient} here; the messages of a wrong set-up come from child JVMs ({@link TroubleshootingScenario})
 * that lack the Sluice jar, lack Micrometer, or run the unshaded jars on a Dubbo 3.2.19 application's Netty 4.1.
 * Every quote must have its message and every message its quote, so neither can change alone.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class TroubleshootingTest {
    private static final Pattern QUOTE = Pattern.compile("<!-- message: (\\S+) -->\\s*\\n> (.+)");
    private static final Pattern MESSAGE = Pattern.compile("^MESSAGE (\\S+) (.*)$", Pattern.MULTILINE);

    /** The service of the in-process errors. */
    public interface Desk {
        String echo(String text);

        String hold(String tag);

        Object keep(Object value);
    }

    /** A class no registered interface reaches: the server refuses to create it from the wire. */
    public static final class Parcel implements Serializable {
        private static final long serialVersionUID = 1L;
        public String label = "parcel";
    }

    @Test
    void everyQuotedMessageIsTheMessageTheCodeProduces() throws Exception {
        Map<String, String> quotes = quotes();
        Map<String, String> produced = new LinkedHashMap<>();
        sluiceErrors(produced);
        child(produced, IsolatedJvm.of(TroubleshootingScenario.class).name("troubleshooting-no-jar")
                .classPathWithout(SluiceTransporter.class), "no-jar");
        IsolatedJvm noMicrometer = IsolatedJvm.of(TroubleshootingScenario.class).name("troubleshooting-no-micrometer");
        try {
            noMicrometer.classPathWithout(Class.forName("io.micrometer.core.instrument.MeterRegistry"));
        } catch (ClassNotFoundException absentHereToo) {
            // the test class path has no Micrometer either: nothing to leave out
        }
        child(produced, noMicrometer, "no-micrometer");
        child(produced, IsolatedJvm.of(TroubleshootingScenario.class).name("troubleshooting-netty41")
                .classPath(netty41ClassPath()), "netty41");

        assertEquals(quotes.keySet(), produced.keySet(), "the guide quotes " + quotes.keySet()
                + "; the test produced " + produced.keySet());
        List<String> wrong = new ArrayList<>();
        quotes.forEach((id, quote) -> {
            if (!matches(quote, produced.get(id))) {
                wrong.add(id + ": the guide quotes\n  " + quote + "\nthe code said\n  " + produced.get(id));
            }
        });
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /** A request over the payload limit, a call that gets no answer in time, a class the server refuses. */
    private static void sluiceErrors(Map<String, String> produced) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Desk desk = new Desk() {
            @Override
            public String echo(String text) {
                return text;
            }

            @Override
            public String hold(String tag) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return tag;
            }

            @Override
            public Object keep(Object value) {
                return value;
            }
        };
        try (SluiceServer server = SluiceServer.builder().port(0).register(Desk.class, desk).start();
                SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                        .timeout(Duration.ofMillis(300)).payloadLimit(1024).failIfNotConnected(true).build()) {
            Desk proxy = client.proxy(Desk.class);
            assertEquals("ok", proxy.echo("ok"));
            produced.put("request-too-large", assertThrows(RuntimeException.class,
                    () -> proxy.echo("x".repeat(2000))).getMessage());
            try {
                produced.put("timeout", assertThrows(RuntimeException.class, () -> proxy.hold("late")).getMessage());
            } finally {
                release.countDown();
            }
            produced.put("class-not-allowed", assertThrows(RuntimeException.class,
                    () -> proxy.keep(new Parcel())).getMessage());
        }
    }

    private static void child(Map<String, String> produced, IsolatedJvm jvm, String situation) throws Exception {
        ChildResult result = jvm.args(situation).timeout(Duration.ofSeconds(60)).run();
        assertEquals(0, result.exitCode(), result.toString());
        Matcher m = MESSAGE.matcher(result.stdout());
        boolean any = false;
        while (m.find()) {
            produced.put(m.group(1), m.group(2));
            any = true;
        }
        assertTrue(any, "no MESSAGE line from " + situation + ": " + result);
    }

    /**
     * A Dubbo 3.2.19 application's jars (Netty 4.1) with the unshaded sluice-dubbo jar and the two Sluice jars it
     * needs in place of the shaded jar: what an application gets that takes the unshaded jar without Netty 4.2.
     */
    private static String netty41ClassPath() throws IOException {
        String base = PeerClasspath.build("sluice.dubbo32.lib", "dubbo-3.2.19.jar", "dubbo32-classpath",
                "troubleshooting-classes", List.of("dev/sluice/it/docs/TroubleshootingScenario",
                        "dev/sluice/it/harness/Scenario", "dev/sluice/it/harness/DubboPeers",
                        "dev/sluice/it/harness/EchoService", "dev/sluice/it/harness/EchoServiceImpl",
                        "dev/sluice/it/harness/EchoRequest", "dev/sluice/it/harness/EchoReply",
                        "dev/sluice/testing/LeakGate"), List.of("slf4j-simple-", "junit-jupiter-api-"));
        List<String> entries = new ArrayList<>();
        for (String entry : base.split(File.pathSeparator)) {
            if (!Paths.get(entry).getFileName().toString().matches("sluice-dubbo-[0-9.]+\\.jar")) {
                entries.add(entry);
            }
        }
        String testClasspath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : testClasspath.split(File.pathSeparator)) {
            String name = Paths.get(entry).getFileName().toString();
            if (name.matches("sluice-(dubbo-[0-9.]+-unshaded|transport-netty-[0-9.]+|codec-dubbo-[0-9.]+)\\.jar")) {
                entries.add(entry);
            }
        }
        assertEquals(base.split(File.pathSeparator).length + 2, entries.size(), "unshaded Sluice jars in " + entries);
        return String.join(File.pathSeparator, entries);
    }

    /** The guide's quotes by id. */
    private static Map<String, String> quotes() throws IOException {
        String guide = Files.readString(DocSnippetsTest.repo().resolve("docs/guide/troubleshooting.md"),
                StandardCharsets.UTF_8);
        Map<String, String> quotes = new LinkedHashMap<>();
        Matcher m = QUOTE.matcher(guide);
        while (m.find()) {
            String quote = m.group(2).strip();
            if (quote.startsWith("`") && quote.endsWith("`")) {
                quote = quote.substring(1, quote.length() - 1);
            }
            assertFalse(quotes.containsKey(m.group(1)), "message " + m.group(1) + " is quoted twice");
            quotes.put(m.group(1), quote);
        }
        return quotes;
    }

    /** Each piece of {@code quote} between {@code …} occurs in {@code message}, in order. */
    static boolean matches(String quote, String message) {
        if (message == null) {
            return false;
        }
        int at = 0;
        for (String piece : quote.split("…", -1)) {
            if (piece.isEmpty()) {
                continue;
            }
            int found = message.indexOf(piece, at);
            if (found < 0) {
                return false;
            }
            at = found + piece.length();
        }
        return true;
    }
}
