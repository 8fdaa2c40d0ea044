package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.Codecs.decodeOne;
import static dev.sluice.codec.dubbo.Codecs.encode;
import static dev.sluice.codec.dubbo.GoldenVectorsTest.assertDougLea;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Decodes every hessian2 frame captured between real Dubbo 3.3.6 peers ({@link Vectors#hessian2}), checks the call or
 * value it carries, and re-encodes it: hessian-lite writes the same bytes Dubbo's did, so the frames must come out
 * identical (docs/wire-format.md §5).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class Hessian2VectorsTest {
    private final DubboEncoder encoder = new DubboEncoder(8 * 1024 * 1024);

    private static DubboRequest request(String vector) {
        DubboRequest req = assertInstanceOf(DubboRequest.class,
                decodeOne(Codecs.serverDecoder(), Vectors.hessian2(vector)));
        assertFalse(req.isBroken(), req::toString);
        assertTrue(req.isTwoWay());
        assertEquals(DubboConstants.SERIALIZATION_HESSIAN2, req.serializationId());
        assertEquals("2.0.2", req.dubboVersion());
        assertEquals(idOf(Vectors.hessian2(vector)), req.id());
        return req;
    }

    private static long idOf(byte[] frame) {
        return ByteBuffer.wrap(frame, 4, 8).getLong();
    }

    /** A request built from scratch, as SluiceClient sends it, is the captured frame. */
    private void assertReencodes(String vector, DubboMethod method, Object... args) {
        byte[] frame = Vectors.hessian2(vector);
        DubboRequest built = DubboRequest.invocation(idOf(frame), true, DubboConstants.SERIALIZATION_HESSIAN2, method,
                args, Codecs.benchmarkAttachments("1000"));
        assertArrayEquals(frame, encode(encoder, built));
    }

    @Test
    void existUserRequest() {
        DubboRequest req = request("existUser.request");
        assertEquals(Codecs.EXIST_USER, req.method());
        assertArrayEquals(new Object[] {"1"}, req.arguments());
        assertEquals(Codecs.benchmarkAttachments("1000"), req.attachments());
        assertReencodes("existUser.request", Codecs.EXIST_USER, "1");
    }

    @Test
    void getUserRequest() {
        DubboRequest req = request("getUser.request");
        assertEquals(Codecs.GET_USER, req.method());
        assertArrayEquals(new Object[] {2L}, req.arguments());
        assertReencodes("getUser.request", Codecs.GET_USER, 2L);
    }

    @Test
    void listUserRequest() {
        DubboRequest req = request("listUser.request");
        assertEquals(Codecs.LIST_USER, req.method());
        assertArrayEquals(new Object[] {3}, req.arguments());
        assertReencodes("listUser.request", Codecs.LIST_USER, 3);
    }

    @Test
    void createUserRequest() {
        DubboRequest req = request("createUser.request");
        assertEquals(Codecs.CREATE_USER, req.method());
        User user = assertInstanceOf(User.class, req.arguments()[0]);
        assertDougLea(user, 0, "");
        assertEquals(Codecs.benchmarkAttachments("1000"), req.attachments());
        assertReencodes("createUser.request", Codecs.CREATE_USER, user);
    }

    @Test
    void booleanResponses() {
        for (String vector : new String[] {"existUser.response", "createUser.response"}) {
            byte[] frame = Vectors.hessian2(vector);
            DubboResponse resp = assertInstanceOf(DubboResponse.class,
                    decodeOne(Codecs.clientDecoder(boolean.class), frame));
            assertTrue(resp.isOk());
            assertEquals(DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS, resp.resultFlag());
            assertEquals(Map.of("dubbo", "2.0.2"), resp.attachments());
            assertArrayEquals(frame, encode(encoder, DubboResponse.value(resp.id(),
                    DubboConstants.SERIALIZATION_HESSIAN2, resp.value(), DubboResponse.DEFAULT_ATTACHMENTS)), vector);
        }
    }

    @Test
    void getUserResponse() {
        byte[] frame = Vectors.hessian2("getUser.response");
        User user = assertInstanceOf(User.class, decodeValue(frame, User.class, false));
        assertDougLea(user, 2, "");
        assertArrayEquals(frame, encode(encoder, DubboResponse.value(idOf(frame), DubboConstants.SERIALIZATION_HESSIAN2,
                user, DubboResponse.DEFAULT_ATTACHMENTS)));
    }

    @Test
    void listUserResponseTypedAndDeferred() {
        byte[] frame = Vectors.hessian2("listUser.response");
        for (boolean deferred : new boolean[] {false, true}) {
            Page<?> page = assertInstanceOf(Page.class, decodeValue(frame, Codecs.PAGE_OF_USER, deferred));
            assertEquals(3, page.getPageNo());
            assertEquals(15, page.getResult().size());
            for (int i = 0; i < 15; i++) {
                assertDougLea(assertInstanceOf(User.class, page.getResult().get(i)), i, String.valueOf(i));
            }
            assertArrayEquals(frame, encode(encoder, DubboResponse.value(idOf(frame),
                    DubboConstants.SERIALIZATION_HESSIAN2, page, DubboResponse.DEFAULT_ATTACHMENTS)));
        }
    }

    @Test
    void deferredValueLeavesTheAttachmentsReadOnTheLoop() {
        byte[] frame = Vectors.hessian2("getUser.response");
        DubboDecoder deferring = new DubboDecoder(8 * 1024 * 1024, Codecs.userServiceAllowlist(),
                DubboTypeResolver.NONE, true);
        DubboResponse resp = assertInstanceOf(DubboResponse.class, decodeOne(deferring, frame));
        assertTrue(resp.isValueDeferred());
        assertEquals(Map.of("dubbo", "2.0.2"), resp.attachments());
        assertDougLea(assertInstanceOf(User.class, resp.readValue(User.class)), 2, "");
        assertDougLea(assertInstanceOf(User.class, resp.readValue(Object.class)), 2, "");
    }

    private static Object decodeValue(byte[] frame, Type type, boolean deferred) {
        DubboDecoder decoder = deferred
                ? new DubboDecoder(8 * 1024 * 1024, Codecs.userServiceAllowlist(), DubboTypeResolver.NONE, true)
                : Codecs.clientDecoder(type);
        DubboResponse resp = assertInstanceOf(DubboResponse.class, decodeOne(decoder, frame));
        assertTrue(resp.isOk(), resp::toString);
        assertEquals(deferred, resp.isValueDeferred());
        assertEquals(Map.of("dubbo", "2.0.2"), resp.attachments());
        return resp.readValue(type);
    }
}
