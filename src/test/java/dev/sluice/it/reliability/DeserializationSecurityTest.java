package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSONWriter;
import dev.sluice.codec.dubbo.TestBytes;
import dev.sluice.it.reliability.gadget.TraceOnInit;
import dev.sluice.it.reliability.gadget.TrapContextFactory;
import dev.sluice.it.rpc.model.Item;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import javax.naming.Context;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md G30 through the real endpoints: typed values naming classes no registered interface reaches
 * (JNDI and XSLT gadgets, commons-collections transformers, {@code InitialContext}, a class from an unregistered
 * package, an undeclared subclass of a registered type) are refused - by the server as arguments (status 40), by
 * the client as results (status 90) - and none of them is loaded or run. The proof: a static initializer that
 * would leave a trace, the JVM's own list of loaded classes ({@code VM.class_hierarchy}), a JNDI factory that
 * would leave a trace if any {@code InitialContext} were made, and a class loader set as the event loops' context
 * loader that records every class asked of it. In fastjson2 and in hessian2. The codec's AllowlistTest and
 * Hessian2AllowlistTest cover the decoder alone; this covers the wire.
 */
@Timeout(60)
class DeserializationSecurityTest {
    private static final String GADGET = "dev.sluice.it.reliability.gadget.TraceOnInit";
    /** Names a peer might put in a typed value, and never one the service reaches. */
    private static final List<String> REFUSED = List.of(
            "com.sun.rowset.JdbcRowSetImpl",
            "com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl",
            "org.apache.commons.collections.functors.InvokerTransformer",
            "org.apache.commons.collections4.functors.InstantiateTransformer",
            "javax.naming.InitialContext",
            "javax.management.BadAttributeValueExpException",
            "java.lang.ProcessBuilder",
            "java.net.URL",
            "org.springframework.beans.factory.config.PropertyPathFactoryBean",
            "com.mchange.v2.c3p0.WrapperConnectionPoolDataSource",
            "org.apache.xbean.propertyeditor.JndiConverter",
            "ch.qos.logback.core.db.JNDIConnectionSource",
            GADGET,                                            // a class from an unregistered package
            "dev.sluice.it.reliability.SneakyItem",            // an undeclared subclass of a registered type
            "[Lcom.sun.rowset.JdbcRowSetImpl;",                // the same, as arrays
            "com.sun.rowset.JdbcRowSetImpl[]",
            "Lcom.sun.rowset.JdbcRowSetImpl;");

    private static String previousJndiFactory;
    private static Set<String> loadedBefore;
    private RecordingLoader recorder;
    private EventLoopGroup loops;

    /** Records every class asked of it (as a thread's context loader), delegating to the application loader. */
    static final class RecordingLoader extends ClassLoader {
        final Set<String> asked = ConcurrentHashMap.newKeySet();

        RecordingLoader() {
            super(DeserializationSecurityTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            asked.add(name);
            return super.loadClass(name, resolve);
        }
    }

    @BeforeAll
    static void trapJndi() throws Exception {
        previousJndiFactory = System.getProperty(Context.INITIAL_CONTEXT_FACTORY);
        System.setProperty(Context.INITIAL_CONTEXT_FACTORY, TrapContextFactory.class.getName());
        loadedBefore = loaded(REFUSED);
    }

    @AfterAll
    static void restoreJndi() {
        if (previousJndiFactory == null) {
            System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
        } else {
            System.setProperty(Context.INITIAL_CONTEXT_FACTORY, previousJndiFactory);
        }
    }

    @BeforeEach
    void recordingLoops() {
        recorder = new RecordingLoader();
        loops = new MultiThreadIoEventLoopGroup(1, r -> {
            Thread t = new FastThreadLocalThread(r, "recording-loop");
            t.setDaemon(true);
            t.setContextClassLoader(recorder);
            return t;
        }, NioIoHandler.newFactory());
    }

    @AfterEach
    void nothingLoadedNorRun() throws Exception {
        try {
            assertNull(System.getProperty(TraceOnInit.TRACE), "the gadget's static initializer ran");
            assertNull(System.getProperty(TrapContextFactory.TRACE), "something made a JNDI InitialContext");
            Set<String> now = loaded(REFUSED);
            now.removeAll(loadedBefore);
            now.remove("dev.sluice.it.reliability.SneakyItem"); // the client tests build one to send it
            assertTrue(now.isEmpty(), "loaded since the test began: " + now);
            for (String name : REFUSED) {
                String plain = name.replace("[L", "").replace("[]", "").replace(";", "");
                assertFalse(recorder.asked.contains(plain) || recorder.asked.contains(name),
                        "asked the event loop's context loader for " + name);
            }
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** Which of {@code names} (array forms stripped) the JVM has loaded, by any loader: VM.class_hierarchy. */
    static Set<String> loaded(List<String> names) throws Exception {
        String hierarchy = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmClassHierarchy",
                new Object[] {null}, new String[] {String[].class.getName()});
        Set<String> found = new java.util.HashSet<>();
        for (String name : names) {
            String plain = name.replace("[L", "").replace("[]", "").replace(";", "");
            if (plain.startsWith("L")) {
                plain = plain.substring(1);
            }
            if (hierarchy.contains(" " + plain + "/") || hierarchy.contains("-" + plain + "/")) {
                found.add(name);
            }
        }
        return found;
    }

    static final class Vault implements VaultService {
        @Override
        public String store(Object value) {
            return value == null ? "null" : value.getClass().getName();
        }

        @Override
        public Item keep(Item item) {
            return item;
        }

        @Override
        public Object fetch(String what) {
            return what;
        }
    }

    private SluiceServer server() {
        return SluiceServer.builder().port(0).eventLoops(EventLoops.borrow(loops, NativeTransport.NIO))
                .register(VaultService.class, new Vault()).start();
    }

    @Test
    void theServerRefusesEveryTypedArgumentItDoesNotReach() throws Exception {
        try (SluiceServer server = server(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            long id = 100;
            for (String name : REFUSED) {
                for (String method : new String[] {"store", "keep"}) { // as an Object and as an Item argument
                    byte[] call = Wire.request(id, VaultService.class, method,
                            method.equals("store") ? (Object) "x" : new Item("i", BigDecimal.ONE, null, null, null));
                    out.write(Wire.replaceItem(call, 5, Wire.typedValue(name)));
                    Wire.Frame answer = Wire.read(in);
                    assertEquals(id, answer.id());
                    assertEquals(40, answer.status(), name + " as " + method + ": " + answer.text());
                    assertTrue(answer.text().contains("Refused to deserialize type '" + name + "'"),
                            answer.text());
                    id++;
                }
            }
            // Nested inside a list and inside the attachments, too.
            try (JSONWriter w = JSONWriter.ofJSONB()) {
                w.startArray(2);
                w.writeString("harmless");
                w.writeTypeName("com.sun.rowset.JdbcRowSetImpl");
                w.startObject();
                w.endObject();
                out.write(Wire.replaceItem(Wire.request(id, VaultService.class, "store", "x"), 5, w.getBytes()));
            }
            Wire.Frame nested = Wire.read(in);
            assertEquals(40, nested.status(), nested.text());
            byte[] evilAttachments;
            try (JSONWriter w = JSONWriter.ofJSONB()) {
                w.startObject();
                w.writeName("path");
                w.writeString(VaultService.class.getName());
                w.writeName("evil");
                w.writeTypeName(GADGET);
                w.startObject();
                w.endObject();
                w.endObject();
                evilAttachments = w.getBytes();
            }
            out.write(Wire.replaceItem(Wire.request(++id, VaultService.class, "store", "x"), 6, evilAttachments));
            Wire.Frame inAttachments = Wire.read(in);
            assertEquals(40, inAttachments.status(), inAttachments.text());
            assertTrue(inAttachments.text().contains(GADGET), inAttachments.text());

            // The connection is still good, and what the interface reaches still works.
            out.write(Wire.request(++id, VaultService.class, "store", LocalDate.of(2024, 1, 2)));
            Wire.Frame ok = Wire.read(in);
            assertEquals(20, ok.status());
            assertEquals("java.time.LocalDate", ok.item(1));
        }
    }

    @Test
    void anUndeclaredSubclassSentByAClientIsRefused() throws Exception {
        try (SluiceServer server = server();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build()) {
            VaultService vault = client.proxy(VaultService.class);
            RpcException e = assertThrows(RpcException.class, () -> vault.keep(new SneakyItem()));
            assertEquals(40, e.status());
            assertTrue(e.getMessage().contains("Refused to deserialize type 'dev.sluice.it.reliability.SneakyItem'"),
                    e.getMessage());
            RpcException asObject = assertThrows(RpcException.class, () -> vault.store(new SneakyItem()));
            assertEquals(40, asObject.status());
            assertEquals("plain", vault.keep(new Item("plain", BigDecimal.TEN, null, null, null)).getName());
        }
    }

    @Test
    void theClientRefusesEveryTypedResultItDoesNotReach() throws Exception {
        try (ScriptedServer provider = ScriptedServer.start((c, request) -> {
            String what = String.valueOf(request.item(5));
            byte[] value = what.equals("sneaky") ? Wire.withClassName(new SneakyItem()) : Wire.typedValue(what);
            c.send(Wire.valueResponse(request.id(), value));
        });
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", provider.port())
                     .eventLoops(EventLoops.borrow(loops, NativeTransport.NIO))
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build()) {
            VaultService vault = client.proxy(VaultService.class);
            List<String> names = new ArrayList<>(REFUSED);
            names.add("sneaky");
            for (String name : names) {
                long start = System.nanoTime();
                RpcException e = assertThrows(RpcException.class, () -> vault.fetch(name));
                assertEquals(90, e.status(), name + ": " + e.getMessage());
                String expected = name.equals("sneaky") ? "dev.sluice.it.reliability.SneakyItem" : name;
                assertTrue(e.getMessage().contains("Refused to deserialize type '" + expected + "'"), e.getMessage());
                assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "at once, not by timeout");
            }
            assertTrue(client.isConnected(), "one refused result does not cost the connection");
        }
    }

    /** The names of {@link #REFUSED} as hessian2 carries them: class names, and lists typed with {@code [name}. */
    private static List<byte[]> hessian2Values(String name) {
        String plain = name.replace("[L", "").replace("[]", "").replace(";", "");
        if (plain.startsWith("L")) {
            plain = plain.substring(1);
        }
        return List.of(Wire.hessian2Object(plain), Wire.hessian2List("[" + plain));
    }

    @Test
    void theServerRefusesEveryHessian2TypedArgumentItDoesNotReach() throws Exception {
        try (SluiceServer server = server(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            long id = 300;
            for (String name : REFUSED) {
                for (byte[] value : hessian2Values(name)) {
                    for (String method : new String[] {"store", "keep"}) { // as an Object and as an Item argument
                        out.write(Wire.hessian2Request(id, VaultService.class, method, value));
                        Wire.Frame answer = Wire.read(in);
                        assertEquals(id, answer.id());
                        assertEquals(0x02, answer.flags() & 0x1f, "answered in hessian2");
                        assertEquals(40, answer.status(), name + " as " + method + ": " + answer.text());
                        assertTrue(answer.text().contains("Refused to deserialize type"), answer.text());
                        id++;
                    }
                }
            }
            // The connection is still good, and what the interface reaches still works, in hessian2.
            out.write(Wire.hessian2Request(++id, VaultService.class, "store", Wire.hessian2(LocalDate.of(2024, 1, 2))));
            Wire.Frame ok = Wire.read(in);
            assertEquals(20, ok.status(), ok.text());
        }
    }

    @Test
    void theClientRefusesEveryHessian2TypedResultItDoesNotReach() throws Exception {
        List<byte[]> answers = new ArrayList<>();
        for (String name : REFUSED) {
            answers.addAll(hessian2Values(name));
        }
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        try (ScriptedServer provider = ScriptedServer.start((c, request) -> c.send(
                Wire.hessian2ValueResponse(request.id(), answers.get(next.getAndIncrement()))));
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", provider.port())
                     .eventLoops(EventLoops.borrow(loops, NativeTransport.NIO))
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build()) {
            VaultService vault = client.proxy(VaultService.class);
            for (int i = 0; i < answers.size(); i++) {
                RpcException e = assertThrows(RpcException.class, () -> vault.fetch("x"));
                assertEquals(90, e.status(), e.getMessage());
                assertTrue(e.getMessage().contains("Refused to deserialize type"), e.getMessage());
            }
            assertTrue(client.isConnected(), "one refused result does not cost the connection");
        }
    }

    @Test
    void autoTypeKeysAndFastjsonOneBodiesAreNotTypes() throws Exception {
        try (SluiceServer server = server(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            // fastjson 1.x AutoType in JSON text, serialization id 6: this server speaks fastjson2 only.
            byte[] json = ("{\"@type\":\"com.sun.rowset.JdbcRowSetImpl\",\"dataSourceName\":\"ldap://127.0.0.1:1/x\","
                    + "\"autoCommit\":true}").getBytes(StandardCharsets.UTF_8);
            byte[] body = TestBytes.concat(java.nio.ByteBuffer.allocate(4).putInt(json.length).array(), json);
            out.write(TestBytes.concat(Wire.header(0xc6, 0, 1, body.length), body));
            Wire.Frame fastjson1 = Wire.read(in);
            assertEquals(40, fastjson1.status());
            assertTrue(fastjson1.text().contains("Unsupported serialization id 6"), fastjson1.text());
            // An "@type" key in a JSONB map is a key like any other: the map arrives as a map.
            Map<String, Object> map = new HashMap<>();
            map.put("@type", "com.sun.rowset.JdbcRowSetImpl");
            map.put("dataSourceName", "ldap://127.0.0.1:1/x");
            map.put("autoCommit", true);
            out.write(Wire.request(2, VaultService.class, "store", map));
            Wire.Frame asMap = Wire.read(in);
            assertEquals(20, asMap.status(), () -> asMap.text());
            assertEquals("java.util.HashMap", asMap.item(1));
        }
    }

    @Test
    void theTrapsWork() throws Exception {
        // The checks in nothingLoadedNorRun() would notice: prove it on harmless stand-ins.
        assertEquals(Set.of("java.lang.String"), loaded(List.of("java.lang.String", "no.such.Clazz")));
        Throwable jndi = assertThrows(javax.naming.NamingException.class,
                () -> new javax.naming.InitialContext().lookup("x"));
        assertInstanceOf(javax.naming.NamingException.class, jndi);
        assertTrue(System.getProperty(TrapContextFactory.TRACE) != null, "the JNDI trap fired");
        System.clearProperty(TrapContextFactory.TRACE);
        loadedBefore = loaded(REFUSED); // this test loaded InitialContext itself
    }
}
