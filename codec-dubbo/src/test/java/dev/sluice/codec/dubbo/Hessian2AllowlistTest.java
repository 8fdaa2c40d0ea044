package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static dev.sluice.codec.dubbo.TestBytes.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.codec.dubbo.model.Animal;
import dev.sluice.codec.dubbo.model.ProbeService;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/reliability.md G30 for hessian2: a class a peer names is looked up only when the allowlist accepts it, and
 * the walk before hessian-lite refuses forged lengths, deep nesting and dangling references (docs/wire-format.md §5).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class Hessian2AllowlistTest {
    private static final String GADGET = "dev.sluice.codec.dubbo.gadget.StaticInitGadget";
    private static final DubboMethod ECHO = DubboMethod.of(ProbeService.class.getName(), null, "echo",
            "Ljava/lang/Object;");
    private static final DubboMethod ADOPT = DubboMethod.of(ProbeService.class.getName(), null, "adopt",
            "Ldev/sluice/codec/dubbo/model/Animal;");
    private static final byte[] NO_ATTACHMENTS = hex("48 5a");

    /** A hessian2 string, as hessian-lite writes it. */
    private static byte[] string(String s) {
        ByteBuf b = Unpooled.buffer();
        Hessian2Values.write(b, s);
        return ByteBufUtil.getBytes(b);
    }

    /** An object of class {@code typeName} with one field, written by hand: the class is never touched here. */
    static byte[] objectNaming(String typeName) {
        return concat(hex("43"), string(typeName), hex("91"), string("command"), hex("60"),
                string("touch /tmp/pwned"));
    }

    /** A typed fixed list of one null, of type {@code typeName}. */
    private static byte[] listNaming(String typeName) {
        return concat(hex("56"), string(typeName), hex("91 4e"));
    }

    private static byte[] request(long id, DubboMethod method, byte[]... values) {
        byte[] body = concat(method.hessian2Prefix(), concat(values));
        return concat(FramingTest.header(0xc2, 0, id, body.length), body);
    }

    private static byte[] response(long id, byte[] value) {
        byte[] body = concat(hex("91"), value); // flag 1: a value, no attachments
        return concat(FramingTest.header(0x02, 20, id, body.length), body);
    }

    private static DubboDecoder probeServer() {
        ClassAllowlist allowlist = ClassAllowlist.strict();
        return new DubboDecoder(8 << 20, allowlist, new InterfaceTypeResolver(allowlist)
                .register(ProbeService.class, null));
    }

    private static DubboDecoder probeDeferringClient() {
        return new DubboDecoder(8 << 20, ClassAllowlist.strict().register(ProbeService.class),
                DubboTypeResolver.NONE, true);
    }

    private static DubboRequest brokenRequest(byte[] frame) {
        DubboRequest r = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(probeServer(), frame));
        assertTrue(r.isBroken(), r::toString);
        assertEquals(DubboConstants.STATUS_BAD_REQUEST, r.brokenStatus());
        assertEquals(DubboConstants.SERIALIZATION_HESSIAN2, r.serializationId());
        return r;
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "com.sun.rowset.JdbcRowSetImpl",
        "com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl",
        "org.apache.commons.collections.functors.InvokerTransformer",
        "org.springframework.beans.factory.ObjectFactory",
        "org.codehaus.groovy.runtime.MethodClosure",
        "com.rometools.rome.feed.impl.EqualsBean",
        "org.apache.xbean.naming.context.ContextUtil$ReadOnlyBinding",
        "com.caucho.naming.QName",
        "javax.naming.spi.ContinuationContext",
        "sun.reflect.annotation.AnnotationInvocationHandler",
        "java.lang.ProcessBuilder",
        "java.lang.Class",
        "java.net.URL",
        GADGET,
        "dev.sluice.codec.dubbo.model.Dog",             // undeclared subclass of a registered type
        "org.apache.dubbo.benchmark.bean.User",         // reachable only from an interface not registered here
    })
    void refusedTypeNamesInRequestsAndResults(String typeName) {
        for (byte[] value : List.of(objectNaming(typeName), listNaming(typeName), listNaming("[" + typeName))) {
            for (DubboMethod method : List.of(ECHO, ADOPT)) {
                DubboRequest r = brokenRequest(request(101L, method, value, NO_ATTACHMENTS));
                assertEquals(101L, r.id());
                assertTrue(r.errorMessage().contains("Refused to deserialize type '" + typeName + "'"),
                        r.errorMessage());
            }
            DubboResponse typed = assertInstanceOf(DubboResponse.class, Codecs.decodeOne(
                    new DubboDecoder(8 << 20, ClassAllowlist.strict().register(ProbeService.class),
                            DubboTypeResolver.forClient(id -> Object.class)), response(102L, value)));
            assertEquals(DubboConstants.STATUS_CLIENT_ERROR, typed.status(), typed::toString);
            assertTrue(typed.errorMessage().contains("Refused to deserialize type '" + typeName + "'"),
                    typed.errorMessage());
            DubboResponse deferred = assertInstanceOf(DubboResponse.class,
                    Codecs.decodeOne(probeDeferringClient(), response(103L, value)));
            DubboSerializationException e = assertThrows(DubboSerializationException.class,
                    () -> deferred.readValue(Object.class));
            assertTrue(e.getMessage().contains("Refused to deserialize type '" + typeName + "'"), e.getMessage());
        }
        assertNull(System.getProperty("sluice.test.gadget.initialized"), "the gadget's static initializer ran");
    }

    @Test
    void registeredTypesAndTheJdkSetAreRead() {
        ByteBuf b = Unpooled.buffer();
        Hessian2Values.write(b, new Animal("Tom"), new java.util.HashMap<>());
        DubboRequest r = assertInstanceOf(DubboRequest.class,
                Codecs.decodeOne(probeServer(), request(7L, ADOPT, ByteBufUtil.getBytes(b))));
        assertFalse(r.isBroken(), r::toString);
        assertEquals(new Animal("Tom"), r.arguments()[0]);

        ByteBuf v = Unpooled.buffer();
        Hessian2Values.write(v, Arrays.asList(java.time.LocalDateTime.of(2026, 11, 25, 1, 2, 3),
                new java.math.BigDecimal("12.50"), java.util.concurrent.TimeUnit.SECONDS), new java.util.HashMap<>());
        DubboRequest echo = assertInstanceOf(DubboRequest.class,
                Codecs.decodeOne(probeServer(), request(8L, ECHO, ByteBufUtil.getBytes(v))));
        assertFalse(echo.isBroken(), echo::toString);
        assertEquals(List.of(java.time.LocalDateTime.of(2026, 11, 25, 1, 2, 3), new java.math.BigDecimal("12.50"),
                java.util.concurrent.TimeUnit.SECONDS), echo.arguments()[0]);
    }

    @Test
    void aForgedListLengthIsRefusedBeforeAnythingIsAllocated() {
        // An untyped fixed list declaring 2^31 - 1 elements, then typed ones of [int and [object: a reader that
        // trusted the count would size an array from it.
        for (String value : List.of("58 49 7f ff ff ff 4e", "56 04 5b 69 6e 74 49 7f ff ff ff 90",
                "56 07 5b 6f 62 6a 65 63 74 d3 ff ff 4e")) {
            DubboRequest r = brokenRequest(request(9L, ECHO, hex(value), NO_ATTACHMENTS));
            assertTrue(r.errorMessage().contains("list length") && r.errorMessage().contains("exceeds the"),
                    r.errorMessage());
        }
    }

    @Test
    void forgedStringAndBinaryLengthsAreRefused() {
        for (String value : List.of("53 ff ff 41", "33 ff 41", "42 ff ff 00", "37 ff 00")) {
            DubboRequest r = brokenRequest(request(10L, ECHO, hex(value), NO_ATTACHMENTS));
            assertTrue(r.errorMessage().contains("truncated"), r.errorMessage());
        }
    }

    /** Lists of one element inside each other, {@code depth} deep, around a null. */
    private static byte[] nestedLists(int depth) {
        byte[] nested = new byte[depth + 1];
        Arrays.fill(nested, 0, depth, (byte) 0x79); // an untyped fixed list of length 1
        nested[depth] = 'N';
        return nested;
    }

    @Test
    void nestingBeyondTheBoundIsRefused() {
        DubboRequest r = brokenRequest(request(11L, ECHO, nestedLists(Hessian2Bounds.MAX_DEPTH + 2), NO_ATTACHMENTS));
        assertTrue(r.errorMessage().contains("nested deeper than " + Hessian2Bounds.MAX_DEPTH), r.errorMessage());

        DubboRequest ok = assertInstanceOf(DubboRequest.class,
                Codecs.decodeOne(probeServer(), request(12L, ECHO, nestedLists(32), NO_ATTACHMENTS)));
        assertFalse(ok.isBroken(), ok::toString);
    }

    @Test
    void danglingReferencesAreRefused() {
        // An object of a class definition never given, a back reference to nothing, a type reference to nothing.
        for (String value : List.of("60", "4f 91", "51 90", "71 90 4e")) {
            DubboRequest r = brokenRequest(request(13L, ECHO, hex(value), NO_ATTACHMENTS));
            assertTrue(r.errorMessage().contains("defined so far") || r.errorMessage().contains("read so far"),
                    r.errorMessage());
        }
    }

    @Test
    void aCircularStructureIsReadAsHessianWroteIt() {
        java.util.ArrayList<Object> self = new java.util.ArrayList<>();
        self.add("x");
        self.add(self);
        ByteBuf b = Unpooled.buffer();
        Hessian2Values.write(b, self, new java.util.HashMap<>());
        DubboRequest r = assertInstanceOf(DubboRequest.class,
                Codecs.decodeOne(probeServer(), request(14L, ECHO, ByteBufUtil.getBytes(b))));
        assertFalse(r.isBroken(), r::toString);
        List<?> read = assertInstanceOf(List.class, r.arguments()[0]);
        assertEquals("x", read.get(0));
        assertTrue(read.get(1) == read, "the back reference points at the list itself");
    }
}
