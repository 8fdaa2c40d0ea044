package dev.sluice.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DecodeLimits;
import dev.sluice.codec.dubbo.DubboCodec;
import dev.sluice.dubbo.SluiceThreadPool;
import dev.sluice.dubbo.SluiceTransporter;
import dev.sluice.rpc.EndpointBuilder;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.internal.ServicePool;
import dev.sluice.transport.netty.NettyClientTransport;
import dev.sluice.transport.netty.NettyServerTransport;
import dev.sluice.transport.netty.TransportBuilder;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@value #PAGE} is the whole configuration reference, and stays so: every {@code sluice.*} URL key the Dubbo
 * Transporter reads (its {@code *_KEY} constants, and any {@code "sluice.…"} literal in its sources), every Dubbo key
 * it reads through Dubbo's constants, every option method of the public builders and option types (a public
 * {@code *Builder}, {@code *Options}, {@code *Limits}, {@code *Reference} or {@code *Allowlist} class not covered
 * fails too), and every {@code sluice.*} system property main code reads is listed there; the page names none that
 * no longer exists; and a number in a <i>Default</i> column is the default the code has (read from the code:
 * constants, a fresh builder, the options the Transporter derives from an empty URL). The repository root is the
 * system property {@value ConfigSnippetsTest#REPO_DIR}, set in this module's pom.
 *
 * <p>Runs on the test thread only.
 */
@Timeout(60)
class ConfigurationReferenceTest {
    static final String PAGE = "docs/guide/configuration.md";

    /** The builder and option types the page documents, by the name its headings give them. */
    private static final Map<String, Class<?>> TYPES = new LinkedHashMap<>();

    static {
        TYPES.put("SluiceServer.Builder", SluiceServer.Builder.class);
        TYPES.put("SluiceClient.Builder", SluiceClient.Builder.class);
        TYPES.put("SluiceClient.Reference", SluiceClient.Reference.class);
        TYPES.put("SluiceClient.GenericReference", SluiceClient.GenericReference.class);
        TYPES.put("EndpointBuilder", EndpointBuilder.class);
        TYPES.put("TransportBuilder", TransportBuilder.class);
        TYPES.put("TransportOptions.Builder", TransportOptions.Builder.class);
        TYPES.put("DecodeLimits", DecodeLimits.class);
        TYPES.put("NettyServerTransport.Builder", NettyServerTransport.Builder.class);
        TYPES.put("NettyClientTransport.Builder", NettyClientTransport.Builder.class);
        TYPES.put("DubboCodec.Builder", DubboCodec.Builder.class);
        TYPES.put("ClassAllowlist", ClassAllowlist.class);
    }

    /** Methods of a builder that finish it rather than set an option. */
    private static final Set<String> FINISHERS = Set.of("build", "start", "bind", "proxy");

    private static final Pattern SLUICE_LITERAL = Pattern.compile("(?<!builder\\()\"(sluice\\.[A-Za-z0-9_.-]+)\"");
    private static final Pattern DUBBO_KEY_CONSTANT =
            Pattern.compile("\\b(?:CommonConstants|Constants)\\.(?:ThirdPartyProperty\\.)?([A-Z][A-Z0-9_]*_KEY)\\b");
    private static final Pattern PROPERTY_READ = Pattern.compile(
            "\\b(?:System\\.getProperty|Boolean\\.getBoolean|Integer\\.getInteger|Long\\.getLong"
                    + "|SystemPropertyUtil\\.get\\w*)\\(\\s*([^,)]+)");
    private static final Pattern STRING_CONSTANT =
            Pattern.compile("\\bstatic\\s+final\\s+String\\s+(\\w+)\\s*=\\s*\"([^\"]*)\"");
    /** A public class whose name says it configures something; group 1 is its indent (nested when not empty). */
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^(\\s*)public\\s+(?:static\\s+)?(?:final\\s+|abstract\\s+)?class\\s+"
                    + "(\\w*(?:Builder|Options|Limits|Reference|Allowlist))\\b", Pattern.MULTILINE);
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern METHOD = Pattern.compile("`(\\w+)\\(");
    /** A number in a cell: a digit not inside a word such as {@code hessian2} or {@code io_uring}. */
    private static final Pattern NUMBER = Pattern.compile("(?<![\\w.])\\d");

    // ---------------------------------------------------------------------------------------------- URL keys

    @Test
    void everySluiceUrlKeyTheTransporterReadsIsListedAndNoOther() throws Exception {
        Set<String> constants = new TreeSet<>();
        for (Field f : urlOptions().getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class && f.getName().endsWith("_KEY")) {
                f.setAccessible(true);
                constants.add((String) f.get(null));
            }
        }
        assertFalse(constants.isEmpty(), "DubboUrlOptions declares the sluice.* keys as *_KEY constants");
        Set<String> literals = new TreeSet<>();
        for (Path file : javaFiles(adapterSources())) {
            Matcher m = SLUICE_LITERAL.matcher(Files.readString(file));
            while (m.find()) {
                literals.add(m.group(1));
            }
        }
        assertTrue(literals.containsAll(constants), "the source scan finds the constants' literals: " + literals);
        Set<String> read = new TreeSet<>(constants);
        read.addAll(literals);
        assertListedExactly(read, "Key", "URL keys", "the Transporter");
    }

    @Test
    void everyDubboKeyTheTransporterReadsIsOnThePage() throws Exception {
        Set<String> read = new TreeSet<>();
        for (Path file : javaFiles(adapterSources())) {
            Matcher m = DUBBO_KEY_CONSTANT.matcher(Files.readString(file));
            while (m.find()) {
                read.add(dubboConstant(m.group(1)));
            }
        }
        assertTrue(read.contains("payload"), "the scan finds Dubbo's keys: " + read);
        Set<String> onPage = page().codeSpans();
        assertEquals(Set.of(), minus(read, onPage),
                "Dubbo keys the Transporter reads (through Dubbo's constants) that " + PAGE + " does not name");
    }

    // ---------------------------------------------------------------------------------------------- builders

    @Test
    void everyBuilderOptionIsListedAndNoOther() throws IOException {
        Page page = page();
        Map<Class<?>, Set<String>> listed = new LinkedHashMap<>();
        List<String> gone = new ArrayList<>();
        for (Row row : page.rows("Method")) {
            List<String> types = row.headingTypes();
            assertFalse(types.isEmpty(), PAGE + ":" + row.line + ": a builder table's heading names its type");
            for (String name : types) {
                Class<?> type = TYPES.get(name);
                Set<String> exists = options(type);
                for (String method : row.methods()) {
                    if (!exists.contains(method)) {
                        gone.add(name + "." + method + " (" + PAGE + ":" + row.line + ")");
                    }
                    listed.computeIfAbsent(type, k -> new TreeSet<>()).add(method);
                }
            }
        }
        Set<String> missing = new TreeSet<>();
        for (Map.Entry<String, Class<?>> e : TYPES.entrySet()) {
            Class<?> type = e.getValue();
            if (Modifier.isAbstract(type.getModifiers())) {
                continue; // its methods are checked on the concrete builders, wherever the page lists them
            }
            Set<String> documented = new TreeSet<>();
            listed.forEach((t, methods) -> {
                if (t.isAssignableFrom(type)) {
                    documented.addAll(methods);
                }
            });
            for (String method : options(type)) {
                if (!documented.contains(method)) {
                    missing.add(e.getKey() + "." + method);
                }
            }
        }
        assertEquals(Set.of(), missing, "public option methods " + PAGE + " does not list (add a row to the table of"
                + " the type that declares them)");
        assertEquals(List.of(), gone, "methods " + PAGE + " lists that the type under its heading does not have");
    }

    @Test
    void everyPublicBuilderOrOptionsTypeIsCovered() throws IOException {
        Set<String> found = new TreeSet<>();
        for (Path dir : mainSourceDirs()) {
            String module = repo().relativize(dir).getName(0).toString();
            if (module.equals("benchmark") || module.equals("examples")) {
                continue;
            }
            for (Path file : javaFiles(dir)) {
                String outer = file.getFileName().toString().replace(".java", "");
                Matcher m = PUBLIC_TYPE.matcher(Files.readString(file));
                while (m.find()) {
                    String name = m.group(2);
                    found.add(m.group(1).isEmpty() || name.equals(outer) ? name : outer + "." + name);
                }
            }
        }
        assertTrue(found.contains("SluiceServer.Builder"), "the scan finds the builders: " + found);
        Set<String> uncovered = new TreeSet<>();
        for (String name : found) {
            if (!TYPES.containsKey(name) && !TYPES.containsKey(name + ".Builder")) {
                uncovered.add(name);
            }
        }
        assertEquals(Set.of(), uncovered, "public builder or option types that neither " + PAGE
                + " nor this test covers: add a section to the page and the type to TYPES here");
    }

    // ---------------------------------------------------------------------------------------------- system properties

    @Test
    void everySluiceSystemPropertyMainCodeReadsIsListedAndNoOther() throws IOException {
        Map<String, Set<String>> constants = new LinkedHashMap<>();
        Map<Path, String> sources = new LinkedHashMap<>();
        for (Path dir : mainSourceDirs()) {
            for (Path file : javaFiles(dir)) {
                String text = Files.readString(file);
                sources.put(file, text);
                Matcher m = STRING_CONSTANT.matcher(text);
                while (m.find()) {
                    constants.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
                }
            }
        }
        Set<String> read = new TreeSet<>();
        for (Map.Entry<Path, String> source : sources.entrySet()) {
            Matcher m = PROPERTY_READ.matcher(source.getValue());
            while (m.find()) {
                String arg = m.group(1).trim();
                if (arg.startsWith("\"")) {
                    read.add(arg.substring(1, arg.indexOf('"', 1)));
                    continue;
                }
                String name = arg.substring(arg.lastIndexOf('.') + 1);
                Matcher local = Pattern.compile("\\bstatic\\s+final\\s+String\\s+" + Pattern.quote(name)
                        + "\\s*=\\s*\"([^\"]*)\"").matcher(source.getValue());
                if (local.find()) {
                    read.add(local.group(1));
                } else {
                    read.addAll(constants.getOrDefault(name, Set.of())); // not ours (Dubbo's, the JDK's): none
                }
            }
        }
        read.removeIf(p -> !p.startsWith("sluice."));
        assertTrue(read.contains("sluice.native"), "the scan finds the properties main code reads: " + read);
        assertListedExactly(read, "Property", "system properties", "main code");
    }

    /**
     * The {@code sluice.*} names in the first column of the page's tables headed {@code column} are exactly
     * {@code read}: the message names what is missing, or what is listed and no longer read.
     */
    private static void assertListedExactly(Set<String> read, String column, String what, String reader)
            throws IOException {
        Set<String> listed = new TreeSet<>();
        for (Row row : page().rows(column)) {
            row.names().stream().filter(n -> n.startsWith("sluice.")).forEach(listed::add);
        }
        assertEquals(Set.of(), minus(read, listed),
                "sluice.* " + what + " " + reader + " reads that " + PAGE + " does not list (add a row)");
        assertEquals(Set.of(), minus(listed, read),
                "sluice.* " + what + " " + PAGE + " lists that " + reader + " no longer reads (remove the row)");
    }

    // ---------------------------------------------------------------------------------------------- defaults

    @Test
    void everyNumberInADefaultColumnIsTheCodesDefault() throws Exception {
        Map<String, String> expected = expectedDefaults();
        Set<String> unused = new TreeSet<>(expected.keySet());
        List<String> wrong = new ArrayList<>();
        List<String> unchecked = new ArrayList<>();
        for (Row row : page().rows(null)) {
            String cell = row.cell("Default");
            if (cell == null) {
                continue;
            }
            String value = cell.replace("`", "").trim();
            String id = row.id();
            String want = expected.get(id);
            unused.remove(id);
            if (want == null) {
                if (NUMBER.matcher(value).find()) {
                    unchecked.add(id + " = \"" + value + "\" (" + PAGE + ":" + row.line + ")");
                }
                continue;
            }
            boolean starts = value.startsWith(want)
                    && (value.length() == want.length() || !Character.isLetterOrDigit(value.charAt(want.length())));
            if (!starts) {
                wrong.add(id + ": the page says \"" + value + "\", the code's default is \"" + want + "\" (" + PAGE
                        + ":" + row.line + ")");
            }
        }
        assertEquals(List.of(), wrong, "defaults on " + PAGE + " that are not the code's");
        assertEquals(List.of(), unchecked, "numbers in a Default column that this test does not read from the code:"
                + " add them to expectedDefaults(), or write the default without a number");
        assertEquals(Set.of(), unused, "expectedDefaults() entries with no row on " + PAGE);
    }

    /**
     * The real defaults, by row id ({@link Row#id()}): read from constants, a fresh builder, or the options the
     * Transporter derives from a URL with no parameters. Written the way the page writes them: durations of a URL in
     * ms, a builder's as {@code N s}/{@code N ms}; sizes in KiB or MiB when whole; two values joined by {@code  / }.
     */
    private static Map<String, String> expectedDefaults() throws Exception {
        // A model of its own, destroyed after, so that reading the URL leaves no default Dubbo model in this JVM.
        FrameworkModel model = new FrameworkModel();
        try {
            return expectedDefaults(URL.valueOf("dubbo://127.0.0.1:20880/dev.sluice.Example", model.newApplication()));
        } finally {
            model.destroy();
        }
    }

    private static Map<String, String> expectedDefaults(URL url) throws Exception {
        Map<String, String> d = new LinkedHashMap<>();
        TransportOptions server = (TransportOptions) callStatic(urlOptions(), "server", url);
        TransportOptions client = (TransportOptions) callStatic(urlOptions(), "client", url);
        if (System.getProperty("sluice.native") == null && System.getProperty("netty.epoll.enable") == null) {
            d.put("sluice.native", client.nativeTransport().name().toLowerCase(Locale.ROOT));
        }
        d.put("sluice.reconnect", client.reconnect() ? "fast" : "dubbo");
        assertEquals(server.pendingBytesCap(), client.pendingBytesCap());
        d.put("sluice.pending-bytes", urlBytes(server.pendingBytesCap()));
        d.put("sluice.stall-timeout", ms(client.stallTimeout().toMillis()));
        d.put("sluice.frame-timeout", ms(((Duration) callStatic(urlOptions(), "frameTimeout", url)).toMillis()));
        d.put("sluice.max-connections-per-address", String.valueOf(callStatic(urlOptions(),
                "maxConnectionsPerAddress", url)));
        Object bodyLimits = callStatic(urlOptions(), "bodyLimits", url);
        d.put("sluice.body-check", String.valueOf(bodyLimits != null));
        d.put("sluice.max-number-digits", String.valueOf(((DecodeLimits) bodyLimits).maxNumberDigits()));
        d.put("sluice.max-decoded-elements", String.valueOf(((DecodeLimits) bodyLimits).maxDecodedElements()));
        d.put("sluice.tls.verify-hostname", String.valueOf(client.verifyHostname()));
        d.put("payload", urlBytes(client.payloadLimit()));
        d.put("heartbeat", ms(client.readerIdle().toMillis()));
        d.put("heartbeat.timeout", ms(server.allIdle().toMillis()));
        d.put("close.timeout", ms(server.allIdle().toMillis()));
        d.put("connect.timeout", ms(client.connectTimeout().toMillis()));
        int ioThreads = Math.min(Runtime.getRuntime().availableProcessors() + 1, 32);
        assertEquals(ioThreads, server.ioThreads(), "a provider's iothreads default is min(cores + 1, 32)");
        d.put("iothreads", "min(cores + 1, 32)");
        d.put("accepts", String.valueOf(callStatic(urlOptions(), "maxConnections", url)));
        d.put("timeout", ms(CommonConstants.DEFAULT_TIMEOUT)); // CallClock and SluiceChannel fall back to it
        d.put("dubbo.service.shutdown.wait", ms(CommonConstants.DEFAULT_SERVER_SHUTDOWN_TIMEOUT));
        ServicePool pool = (ServicePool) new SluiceThreadPool().getExecutor(url); // threadpool=sluice, no other key
        try {
            d.put("threads", String.valueOf(pool.maxThreads()));
            d.put("queues", String.valueOf(pool.maxInFlight() - pool.maxThreads()));
            assertEquals(ServicePool.coreThreads(pool.maxThreads()), pool.coreThreads(),
                    "corethreads 0 means one per core, at least 2, at most threads");
            d.put("corethreads", "0");
            d.put("alive", ms(TimeUnit.NANOSECONDS.toMillis(pool.keepAliveNanos())));
        } finally {
            pool.shutdownNow();
        }

        SluiceServer.Builder sb = SluiceServer.builder();
        Object st = field(sb, "transport");
        d.put("SluiceServer.Builder.port", String.valueOf(((InetSocketAddress) field(st, "address")).getPort()));
        d.put("SluiceServer.Builder.idleTimeout", dur(((TransportOptions) call(sb, "resolvedOptions")).allIdle()));
        d.put("SluiceServer.Builder.threads", field(sb, "threads") + " / " + field(sb, "queueCapacity"));
        d.put("SluiceServer.Builder.hotWorkers", String.valueOf(field(sb, "hotWorkers")));
        d.put("SluiceServer.Builder.queuedRequestBytes", bytes((long) field(sb, "queuedBytesLimit")));
        d.put("SluiceServer.Builder.maxConnections", field(st, "maxConnections") + " / "
                + field(st, "maxConnectionsPerAddress"));
        d.put("SluiceServer.Builder.frameTimeout", dur((Duration) field(st, "frameTimeout")));

        SluiceClient.Builder cb = SluiceClient.builder();
        TransportOptions co = (TransportOptions) call(cb, "resolvedOptions");
        d.put("SluiceClient.Builder.timeout", dur((Duration) field(cb, "timeout")));
        d.put("SluiceClient.Builder.heartbeat", dur(co.readerIdle()) + " / "
                + dur((Duration) call(cb, "resolvedIdleTimeout")));
        d.put("SluiceClient.Builder.stallTimeout", dur(co.stallTimeout()));
        d.put("SluiceClient.Builder.serialization", String.valueOf(field(cb, "serialization")));
        d.put("SluiceClient.Builder.failIfNotConnected", String.valueOf(field(cb, "failIfNotConnected")));

        DecodeLimits endpointLimits = (DecodeLimits) field(sb, "decodeLimits");
        assertEquals(endpointLimits.toString(), field(cb, "decodeLimits").toString());
        d.put("EndpointBuilder.maxNumberDigits", String.valueOf(endpointLimits.maxNumberDigits()));
        d.put("EndpointBuilder.maxDecodedElements", String.valueOf(endpointLimits.maxDecodedElements()));
        d.put("TransportBuilder.payloadLimit", bytes(((TransportOptions) call(sb, "options")).payloadLimit()));

        TransportOptions o = TransportOptions.defaults();
        String b = "TransportOptions.Builder.";
        d.put(b + "ioThreads", String.valueOf(o.ioThreads()));
        d.put(b + "connectTimeout", dur(o.connectTimeout()));
        d.put(b + "readerIdle", dur(o.readerIdle()));
        d.put(b + "writerIdle", dur(o.writerIdle()));
        d.put(b + "allIdle", dur(o.allIdle()));
        d.put(b + "payloadLimit", bytes(o.payloadLimit()));
        d.put(b + "writeBufferWaterMarks", bytes(o.writeBufferLowWaterMark()) + " / "
                + bytes(o.writeBufferHighWaterMark()));
        d.put(b + "pendingBytesCap", bytes(o.pendingBytesCap()));
        d.put(b + "drainChunk", o.drainMaxMessages() + " / " + bytes(o.drainMaxBytes()));
        d.put(b + "batchWrite", o.batchWrite().name());
        d.put(b + "nativeTransport", o.nativeTransport().name());
        d.put(b + "allocator", o.allocator().name());
        d.put(b + "reconnect", String.valueOf(o.reconnect()));
        d.put(b + "reconnectBackoff", dur(o.reconnectInitialBackoff()) + " / " + dur(o.reconnectMaxBackoff()));
        d.put(b + "closeTimeout", dur(o.closeTimeout()));
        d.put(b + "socketBuffers", o.socketSendBuffer() + " / " + o.socketReceiveBuffer());
        d.put(b + "observer", o.observer() == null ? "none" : o.observer().toString());
        d.put(b + "stallTimeout", dur(o.stallTimeout()));
        d.put(b + "answerSpin", dur(o.answerSpin()));
        d.put(b + "verifyHostname", String.valueOf(o.verifyHostname()));

        d.put("DecodeLimits.withMaxNumberDigits", String.valueOf(DecodeLimits.DEFAULTS.maxNumberDigits()));
        d.put("DecodeLimits.withMaxDecodedElements", String.valueOf(DecodeLimits.DEFAULTS.maxDecodedElements()));

        NettyServerTransport.Builder nb = NettyServerTransport.builder();
        d.put("NettyServerTransport.Builder.port", String.valueOf(((InetSocketAddress) field(nb, "address"))
                .getPort()));
        d.put("NettyServerTransport.Builder.maxConnections", field(nb, "maxConnections") + " / "
                + field(nb, "maxConnectionsPerAddress"));
        d.put("NettyServerTransport.Builder.frameTimeout", dur((Duration) field(nb, "frameTimeout")));

        DubboCodec.Builder db = DubboCodec.builder();
        d.put("DubboCodec.Builder.payloadLimit", bytes((int) field(db, "payloadLimit")));
        d.put("DubboCodec.Builder.deferResponseValues", String.valueOf(field(db, "deferResponseValues")));
        return d;
    }

    // ---------------------------------------------------------------------------------------------- formats

    /** A URL's milliseconds: {@code 0}, else {@code N ms}. */
    private static String ms(long millis) {
        return millis == 0 ? "0" : millis + " ms";
    }

    /** A builder's duration: {@code 0}, {@code N s}, {@code N ms} or {@code N µs}, the largest whole unit. */
    private static String dur(Duration d) {
        long nanos = d.toNanos();
        if (nanos == 0) {
            return "0";
        }
        if (nanos % 1_000_000_000L == 0) {
            return nanos / 1_000_000_000L + " s";
        }
        return nanos % 1_000_000L == 0 ? nanos / 1_000_000L + " ms" : nanos / 1_000L + " µs";
    }

    /** A size: {@code N MiB} or {@code N KiB} when whole, else the bytes. */
    private static String bytes(long n) {
        if (n > 0 && n % (1024 * 1024) == 0) {
            return n / (1024 * 1024) + " MiB";
        }
        return n > 0 && n % 1024 == 0 ? n / 1024 + " KiB" : String.valueOf(n);
    }

    /** A URL's size: the bytes, then the size in KiB or MiB in parentheses. */
    private static String urlBytes(long n) {
        String unit = bytes(n);
        return unit.equals(String.valueOf(n)) ? unit : n + " (" + unit + ")";
    }

    // ---------------------------------------------------------------------------------------------- reflection

    /** The Transporter's URL parser, package-private beside {@link SluiceTransporter}. */
    private static Class<?> urlOptions() throws ClassNotFoundException {
        return Class.forName(SluiceTransporter.class.getPackageName() + ".DubboUrlOptions");
    }

    private static Object callStatic(Class<?> type, String name, URL url) throws Exception {
        Method m = type.getDeclaredMethod(name, URL.class);
        m.setAccessible(true);
        return m.invoke(null, url);
    }

    /** A no-argument method of {@code target}, declared on its class or a superclass, whatever its access. */
    private static Object call(Object target, String name) throws Exception {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == 0) {
                    m.setAccessible(true);
                    return m.invoke(target);
                }
            }
        }
        throw new NoSuchMethodException(target.getClass().getName() + "." + name + "()");
    }

    /** A field of {@code target}, declared on its class or a superclass, whatever its access. */
    private static Object field(Object target, String name) throws Exception {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(target);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(target.getClass().getName() + "." + name);
    }

    /** The value of Dubbo's constant {@code name}: remoting's {@code Constants} or {@code CommonConstants}. */
    private static String dubboConstant(String name) throws Exception {
        for (Class<?> c : List.of(org.apache.dubbo.remoting.Constants.class, CommonConstants.class,
                CommonConstants.ThirdPartyProperty.class)) {
            try {
                return (String) c.getField(name).get(null);
            } catch (NoSuchFieldException e) {
                // the next class
            }
        }
        throw new NoSuchFieldException("Dubbo constant " + name);
    }

    /**
     * The names of {@code type}'s public option methods: instance methods, inherited ones included, that return the
     * builder (or the option value) so calls chain; not the methods that finish it ({@link #FINISHERS}).
     */
    private static Set<String> options(Class<?> type) {
        Set<String> names = new TreeSet<>();
        for (Method m : type.getMethods()) {
            if (!Modifier.isStatic(m.getModifiers()) && m.getDeclaringClass() != Object.class
                    && m.getReturnType().isAssignableFrom(type) && !FINISHERS.contains(m.getName())) {
                names.add(m.getName());
            }
        }
        return names;
    }

    // ---------------------------------------------------------------------------------------------- files

    private static Path repo() {
        return DocSnippetsTest.repo();
    }

    /** Every module's {@code src/main/java}; build output and the git directory are not searched. */
    private static List<Path> mainSourceDirs() throws IOException {
        Path main = Paths.get("src", "main", "java");
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(repo(), new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = String.valueOf(dir.getFileName());
                if (dir.endsWith(main)) {
                    found.add(dir);
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return name.equals("target") || (name.startsWith(".") && !dir.equals(repo()))
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }
        });
        assertFalse(found.isEmpty(), "no src/main/java under " + repo());
        found.sort(null);
        return found;
    }

    /** The Transporter's package directory, in whichever module holds it. */
    private static Path adapterSources() throws IOException {
        String pkg = SluiceTransporter.class.getPackageName().replace('.', '/');
        for (Path dir : mainSourceDirs()) {
            if (Files.isDirectory(dir.resolve(pkg))) {
                return dir.resolve(pkg);
            }
        }
        throw new IllegalStateException("no module has the sources of " + pkg);
    }

    private static List<Path> javaFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
        }
    }

    private static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> left = new TreeSet<>(a);
        left.removeAll(b);
        return left;
    }

    // ---------------------------------------------------------------------------------------------- the page

    private static Page page() throws IOException {
        return new Page(Files.readString(repo().resolve(PAGE)));
    }

    /** The page's tables, row by row, each with the heading it stands under. */
    private static final class Page {
        /** The code spans outside fenced blocks. */
        final Set<String> spans = new TreeSet<>();
        final List<Row> rows = new ArrayList<>();

        Page(String text) {
            String heading = "";
            List<String> header = null;
            boolean fenced = false;
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i].trim();
                if (line.startsWith("```")) {
                    fenced = !fenced;
                }
                if (fenced) {
                    continue;
                }
                Matcher code = CODE.matcher(line);
                while (code.find()) {
                    spans.add(code.group(1));
                }
                if (line.startsWith("#")) {
                    heading = line;
                }
                if (!line.startsWith("|")) {
                    header = null;
                    continue;
                }
                List<String> cells = cells(line);
                if (header == null) {
                    header = cells;
                } else if (!cells.get(0).startsWith("---")) {
                    rows.add(new Row(heading, header, cells, i + 1));
                }
            }
            assertFalse(rows.isEmpty(), PAGE + " has tables");
        }

        Set<String> codeSpans() {
            return spans;
        }

        /** The rows of the tables whose first column is headed {@code first}; every row when null. */
        List<Row> rows(String first) {
            return rows.stream().filter(r -> first == null || r.header.get(0).equals(first))
                    .collect(Collectors.toList());
        }

        private static List<String> cells(String line) {
            String inner = line.substring(1, line.endsWith("|") ? line.length() - 1 : line.length());
            List<String> cells = new ArrayList<>();
            for (String cell : inner.split("(?<!\\\\)\\|", -1)) {
                cells.add(cell.trim());
            }
            return cells;
        }
    }

    /** One table row: its cells by column header, the heading above its table, its line number. */
    private static final class Row {
        final String heading;
        final List<String> header;
        final List<String> cells;
        final int line;

        Row(String heading, List<String> header, List<String> cells, int line) {
            this.heading = heading;
            this.header = header;
            this.cells = cells;
            this.line = line;
        }

        String cell(String column) {
            int i = header.indexOf(column);
            return i < 0 || i >= cells.size() ? null : cells.get(i);
        }

        /** The code spans of the first cell: the keys or properties a row documents. */
        List<String> names() {
            List<String> names = new ArrayList<>();
            Matcher m = CODE.matcher(cells.get(0));
            while (m.find()) {
                names.add(m.group(1));
            }
            return names;
        }

        /** The methods a builder row documents: {@code name(} in the first cell's code spans. */
        List<String> methods() {
            List<String> methods = new ArrayList<>();
            Matcher m = METHOD.matcher(cells.get(0));
            while (m.find()) {
                if (!methods.contains(m.group(1))) {
                    methods.add(m.group(1));
                }
            }
            return methods;
        }

        /** The documented types the heading names, in order. */
        List<String> headingTypes() {
            List<String> types = new ArrayList<>();
            Matcher m = CODE.matcher(heading);
            while (m.find()) {
                if (TYPES.containsKey(m.group(1))) {
                    types.add(m.group(1));
                }
            }
            return types;
        }

        /**
         * What {@link #expectedDefaults()} calls this row: {@code Type.method} for a method, {@code -Dname} for a
         * system property, else its first name (a URL key).
         */
        String id() {
            if (header.get(0).equals("Method")) {
                List<String> types = headingTypes();
                List<String> methods = methods();
                return (types.isEmpty() ? "?" : types.get(0)) + "." + (methods.isEmpty() ? "?" : methods.get(0));
            }
            List<String> names = names();
            String name = names.isEmpty() ? cells.get(0) : names.get(0);
            return header.get(0).equals("Property") ? "-D" + name : name;
        }
    }
}
