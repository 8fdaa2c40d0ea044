package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.GenericException;
import dev.sluice.codec.dubbo.gadget.StaticInitGadget;
import dev.sluice.codec.dubbo.model.GenericTarget;
import dev.sluice.codec.dubbo.model.GenericTarget.Circle;
import dev.sluice.codec.dubbo.model.GenericTarget.Line;
import dev.sluice.codec.dubbo.model.GenericTarget.Order;
import dev.sluice.codec.dubbo.model.GenericTarget.OutOfStock;
import dev.sluice.codec.dubbo.model.GenericTarget.Shape;
import dev.sluice.codec.dubbo.model.GenericTargetImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 34: a {@link SluiceServer} answers Dubbo's generic calls ({@code $invoke}, {@code generic=true}) and a
 * {@link SluiceClient} makes them ({@link SluiceClient#generic}), in hessian2 and fastjson2: arguments given as maps,
 * lists and primitives reach the method as its declared types, POJO results come back as maps with their
 * {@code "class"}, a thrown exception as {@link GenericException}, and a {@code "class"} the allowlist refuses is
 * never loaded. The same cases run against real Dubbo peers in the root module's {@code dev.sluice.it.generic}.
 */
@Timeout(60)
class GenericCallTest {
    private static final String CIRCLE = Circle.class.getName();
    private static final String GADGET = "dev.sluice.codec.dubbo.gadget.StaticInitGadget";

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private GenericService generic(Serialization serialization, String version, String group) {
        SluiceServer server = SluiceServer.builder().port(0)
                .register(GenericTarget.class, new GenericTargetImpl(""))
                .register(GenericTarget.class, new GenericTargetImpl("v2/a "), "2.0", "a")
                .allowClasses(CIRCLE)
                .start();
        closeables.add(server);
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(10)).serialization(serialization).failIfNotConnected(true).build();
        closeables.add(client);
        return client.generic(GenericTarget.class.getName()).version(version).group(group).service();
    }

    private static Map<String, Object> line(String sku, int quantity) {
        Map<String, Object> m = new HashMap<>();
        m.put("sku", sku);
        m.put("quantity", quantity);
        return m;
    }

    @ParameterizedTest
    @EnumSource(Serialization.class)
    void genericCallsReachTheTypedMethodAndAnswerInGenericForm(Serialization s) throws Exception {
        GenericService catalog = generic(s, null, null);

        assertEquals(5L, catalog.invoke("add", new String[] {"int", "long"}, new Object[] {2, 3}));
        assertEquals("hello x", catalog.invoke("greet", new String[] {"java.lang.String"}, new Object[] {"x"}));
        assertNull(catalog.invoke("nothing", new String[] {"java.lang.String"}, new Object[] {null}));

        Map<String, Object> order = new HashMap<>();
        order.put("class", Order.class.getName());
        order.put("id", 41);
        order.put("customer", "ann");
        order.put("lines", new ArrayList<>(List.of(line("a", 1), line("b", 2))));
        Map<?, ?> total = (Map<?, ?>) catalog.invoke("total", new String[] {Order.class.getName()},
                new Object[] {order});
        assertEquals(Order.class.getName(), total.get("class"));
        assertEquals(42L, ((Number) total.get("id")).longValue());
        assertEquals("ANN", total.get("customer"));
        List<?> lines = (List<?>) total.get("lines");
        assertEquals(2, lines.size());
        assertEquals(Line.class.getName(), ((Map<?, ?>) lines.get(1)).get("class"));
        assertEquals(4, ((Number) ((Map<?, ?>) lines.get(1)).get("quantity")).intValue());

        List<?> split = (List<?>) catalog.invoke("split", new String[] {"java.util.List"},
                new Object[] {new ArrayList<>(List.of(line("c", 3)))});
        assertEquals(3, split.size());
        assertEquals("c", ((Map<?, ?>) split.get(2)).get("sku"));

        Map<String, Object> counts = new HashMap<>(Map.of("x", 1, "y", 2));
        assertEquals(Map.of("X", 2, "Y", 3), catalog.invoke("counts", new String[] {"java.util.Map"},
                new Object[] {counts}));

        assertEquals("int 7", catalog.invoke("over", new String[] {"int"}, new Object[] {7}));
        assertEquals("string 7", catalog.invoke("over", new String[] {"java.lang.String"}, new Object[] {"7"}));

        CompletableFuture<Object> async = catalog.invokeAsync("greet", new String[] {"java.lang.String"},
                new Object[] {"async"});
        assertEquals("hello async", async.get(10, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @EnumSource(Serialization.class)
    void versionAndGroupSelectTheImplementation(Serialization s) {
        assertEquals("v2/a hello y", generic(s, "2.0", "a").invoke("greet", new String[] {"java.lang.String"},
                new Object[] {"y"}));
    }

    @ParameterizedTest
    @EnumSource(Serialization.class)
    void aSubtypeNamedInClassIsBuiltWhenTheAllowlistAcceptsIt(Serialization s) {
        GenericService catalog = generic(s, null, null);
        Map<String, Object> circle = new HashMap<>(Map.of("class", CIRCLE, "name", "c", "radius", 2));
        assertEquals(CIRCLE + ":c", catalog.invoke("kind", new String[] {Shape.class.getName()},
                new Object[] {circle}));
        Map<String, Object> plain = new HashMap<>(Map.of("name", "s"));
        assertEquals(Shape.class.getName() + ":s", catalog.invoke("kind", new String[] {Shape.class.getName()},
                new Object[] {plain}));
    }

    @ParameterizedTest
    @EnumSource(Serialization.class)
    void aDeclaredExceptionArrivesAsGenericExceptionWithItsClassAndMessage(Serialization s) throws Exception {
        GenericService catalog = generic(s, null, null);
        GenericException e = assertThrows(GenericException.class,
                () -> catalog.invoke("reserve", new String[] {"java.lang.String"}, new Object[] {"sku-9"}));
        assertEquals(OutOfStock.class.getName(), e.getExceptionClass());
        assertEquals("no sku-9", e.getExceptionMessage());
        assertTrue(e.getMessage().startsWith(OutOfStock.class.getName() + ": no sku-9"), e.getMessage());

        ExecutionException async = assertThrows(ExecutionException.class, () -> catalog.invokeAsync("reserve",
                new String[] {"java.lang.String"}, new Object[] {"sku-8"}).get(10, TimeUnit.SECONDS));
        assertInstanceOf(GenericException.class, async.getCause());
    }

    @ParameterizedTest
    @EnumSource(Serialization.class)
    void anUnknownMethodIsAServiceErrorNamingIt(Serialization s) {
        RpcException e = assertThrows(RpcException.class, () -> generic(s, null, null)
                .invoke("nope", new String[] {"java.lang.String"}, new Object[] {"x"}));
        assertEquals(70, e.status());
        assertTrue(e.getMessage().contains("No such method nope(java.lang.String)"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Serialization.class)
    void aClassTheAllowlistRefusesIsNeverLoaded(Serialization s) {
        GenericService catalog = generic(s, null, null);
        Map<String, Object> gadget = new HashMap<>(Map.of("class", GADGET, "name", "x", "command", "touch /tmp/x"));
        RpcException e = assertThrows(RpcException.class,
                () -> catalog.invoke("kind", new String[] {Shape.class.getName()}, new Object[] {gadget}));
        assertEquals(40, e.status());
        assertTrue(e.getMessage().contains("Refused to deserialize type '" + GADGET + "'"), e.getMessage());
        assertNull(System.getProperty(StaticInitGadget.TRACE), "the gadget class was initialized");
        // and where Object is declared, deep inside a map
        Map<String, Object> nested = new HashMap<>(Map.of("k", new ArrayList<>(List.of(gadget))));
        RpcException deep = assertThrows(RpcException.class, () -> catalog.invoke("counts",
                new String[] {"java.util.Map"}, new Object[] {new HashMap<>(Map.of("a", nested))}));
        assertEquals(40, deep.status());
        assertNull(System.getProperty(StaticInitGadget.TRACE), "the gadget class was initialized");
    }

    @ParameterizedTest
    @EnumSource(Serialization.class)
    void otherGenericModesAreRefusedNamingTheMode(Serialization s) {
        SluiceServer server = SluiceServer.builder().port(0)
                .register(GenericTarget.class, new GenericTargetImpl("")).start();
        closeables.add(server);
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(10)).serialization(s).build();
        closeables.add(client);
        for (String mode : new String[] {"nativejava", "bean", "protobuf-json", "gson"}) {
            GenericService catalog = client.generic(GenericTarget.class.getName()).attachment("generic", mode)
                    .service();
            RpcException e = assertThrows(RpcException.class,
                    () -> catalog.invoke("greet", new String[] {"java.lang.String"}, new Object[] {"x"}));
            assertEquals(40, e.status());
            assertTrue(e.getMessage().contains("Generic mode '" + mode + "' is not supported"), e.getMessage());
        }
        assertFalse(Boolean.getBoolean(StaticInitGadget.TRACE));
    }
}
