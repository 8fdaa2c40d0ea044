package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.Codecs.decodeOne;
import static dev.sluice.codec.dubbo.Codecs.encode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Decodes every frame captured from real Dubbo 3.3.6 ({@link Vectors}), re-encodes the decoded values and checks the
 * bytes where they are deterministic (docs/wire-format.md).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GoldenVectorsTest {
    private static final long BASE_ID = 0x4a12e1b83e9202ddL;
    private static final List<Integer> PERMISSIONS = Arrays.asList(1, 2, 3, 4, 5, 6, 7, 8, 19, 88, 86, 89, 90, 91, 92);
    /** The readonly event of docs/wire-format.md §6.2 (no .hex file). */
    static final byte[] READONLY_EVENT =
            TestBytes.hex("da bb b7 00 ca bf ed 80 95 05 81 b8 00 00 00 06 00 00 00 02 4a 52");

    private final DubboEncoder encoder = new DubboEncoder(8 * 1024 * 1024);

    private static DubboRequest request(String vector) {
        return assertInstanceOf(DubboRequest.class, decodeOne(Codecs.serverDecoder(), Vectors.frame(vector)));
    }

    private static void assertBenchmarkCall(DubboRequest req, long id, DubboMethod method) {
        assertFalse(req.isBroken(), req::toString);
        assertEquals(id, req.id());
        assertTrue(req.isTwoWay());
        assertFalse(req.isEvent());
        assertEquals(DubboConstants.SERIALIZATION_FASTJSON2, req.serializationId());
        assertEquals("2.0.2", req.dubboVersion());
        assertEquals(method, req.method());
        assertEquals(Codecs.benchmarkAttachments("1000"), req.attachments());
        assertTrue(req.supportsResponseAttachments());
    }

    @Test
    void leakGateIsWatchingThisJvm() {
        assertTrue(dev.sluice.testing.LeakGate.active(), "tests must run with the paranoid recording detector");
    }

    @Test
    void existUserRequest() {
        DubboRequest req = request("existUser.request");
        assertBenchmarkCall(req, BASE_ID + 1, Codecs.EXIST_USER);
        assertEquals("org.apache.dubbo.benchmark.service.UserService", req.servicePath());
        assertEquals("0.0.0", req.serviceVersion());
        assertEquals("existUser", req.methodName());
        assertEquals("Ljava/lang/String;", req.parameterTypesDesc());
        assertArrayEquals(new Object[] {"1"}, req.arguments());
    }

    @Test
    void existUserRequestReencodesByteForByte() {
        DubboRequest req = DubboRequest.invocation(BASE_ID + 1, Codecs.EXIST_USER, new Object[] {"1"},
                Codecs.benchmarkAttachments("1000"));
        assertArrayEquals(Vectors.frame("existUser.request"), encode(encoder, req));
    }

    @Test
    void getUserRequest() {
        DubboRequest req = request("getUser.request");
        assertBenchmarkCall(req, BASE_ID + 2, Codecs.GET_USER);
        assertArrayEquals(new Object[] {2L}, req.arguments());
        assertArrayEquals(Vectors.frame("getUser.request"),
                encode(encoder, DubboRequest.invocation(req.id(), Codecs.GET_USER, new Object[] {2L},
                        Codecs.benchmarkAttachments("1000"))));
    }

    @Test
    void listUserRequest() {
        DubboRequest req = request("listUser.request");
        assertBenchmarkCall(req, BASE_ID + 3, Codecs.LIST_USER);
        assertArrayEquals(new Object[] {3}, req.arguments());
        assertArrayEquals(Vectors.frame("listUser.request"),
                encode(encoder, DubboRequest.invocation(req.id(), Codecs.LIST_USER, new Object[] {3},
                        Codecs.benchmarkAttachments("1000"))));
    }

    @Test
    void createUserRequest() {
        DubboRequest req = request("createUser.request");
        assertBenchmarkCall(req, BASE_ID, Codecs.CREATE_USER);
        User user = assertInstanceOf(User.class, req.arguments()[0]);
        assertDougLea(user, 0, "");
        // Same values, same features: the same bytes.
        assertArrayEquals(Vectors.frame("createUser.request"), encode(encoder, req));
    }

    @Test
    void existUserResponse() {
        byte[] frame = Vectors.frame("existUser.response");
        DubboResponse resp = assertInstanceOf(DubboResponse.class,
                decodeOne(Codecs.clientDecoder(boolean.class), frame));
        assertEquals(BASE_ID + 1, resp.id());
        assertTrue(resp.isOk());
        assertFalse(resp.isHeartbeat());
        assertEquals(DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS, resp.resultFlag());
        assertEquals(Boolean.FALSE, resp.value());
        assertEquals(Map.of("dubbo", "2.0.2"), resp.attachments());
        DubboRequest original = DubboRequest.invocation(resp.id(), Codecs.EXIST_USER, new Object[] {"1"}, null);
        assertArrayEquals(frame, encode(encoder, DubboResponse.replyValue(original, false)));
        assertArrayEquals(frame, encode(encoder, DubboResponse.value(resp.id(), (byte) 23, false,
                Map.of("dubbo", "2.0.2"))));
    }

    @Test
    void createUserResponse() {
        byte[] frame = Vectors.frame("createUser.response");
        DubboResponse resp = assertInstanceOf(DubboResponse.class,
                decodeOne(Codecs.clientDecoder(boolean.class), frame));
        assertEquals(BASE_ID, resp.id());
        assertEquals(Boolean.TRUE, resp.value());
        assertArrayEquals(frame, encode(encoder, DubboResponse.value(BASE_ID, (byte) 23, true,
                DubboResponse.DEFAULT_ATTACHMENTS)));
    }

    @Test
    void getUserResponse() {
        byte[] frame = Vectors.frame("getUser.response");
        DubboResponse resp = assertInstanceOf(DubboResponse.class,
                decodeOne(Codecs.clientDecoder(User.class), frame));
        assertEquals(BASE_ID + 2, resp.id());
        assertEquals(DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS, resp.resultFlag());
        User user = assertInstanceOf(User.class, resp.value());
        assertDougLea(user, 2, "");
        assertEquals(Map.of("dubbo", "2.0.2"), resp.attachments());
        assertArrayEquals(frame, encode(encoder, DubboResponse.value(resp.id(), (byte) 23, user,
                DubboResponse.DEFAULT_ATTACHMENTS)));
    }

    @Test
    void getUserResponseWithoutExpectedTypeStillReadsUser() {
        // No return type known (generic call): the typed value is read as User because the allowlist accepts it.
        DubboResponse resp = assertInstanceOf(DubboResponse.class,
                decodeOne(Codecs.clientDecoder(Object.class), Vectors.frame("getUser.response")));
        assertDougLea(assertInstanceOf(User.class, resp.value()), 2, "");
    }

    @Test
    void listUserResponse() {
        byte[] frame = Vectors.frame("listUser.response");
        DubboResponse resp = assertInstanceOf(DubboResponse.class,
                decodeOne(Codecs.clientDecoder(Codecs.PAGE_OF_USER), frame));
        assertEquals(BASE_ID + 3, resp.id());
        Page<?> page = assertInstanceOf(Page.class, resp.value());
        assertEquals(3, page.getPageNo());
        assertEquals(1000, page.getTotal());
        assertEquals(15, page.getResult().size());
        for (int i = 0; i < 15; i++) {
            // Items must be User, not HashMap: the allowlist accepts User via Page<User> (docs/wire-format.md §7.3).
            User u = assertInstanceOf(User.class, page.getResult().get(i));
            assertDougLea(u, i, String.valueOf(i));
        }
        assertArrayEquals(frame, encode(encoder, DubboResponse.value(resp.id(), (byte) 23, page,
                DubboResponse.DEFAULT_ATTACHMENTS)));
    }

    @Test
    void heartbeatRequestAndResponse() {
        byte[] reqFrame = Vectors.frame("heartbeat.request");
        DubboRequest req = assertInstanceOf(DubboRequest.class, decodeOne(Codecs.serverDecoder(), reqFrame));
        assertEquals(BASE_ID + 5, req.id());
        assertTrue(req.isEvent());
        assertTrue(req.isHeartbeat());
        assertTrue(req.isTwoWay());
        assertNull(req.eventData());
        assertEquals(DubboConstants.SERIALIZATION_FASTJSON2, req.serializationId());
        assertArrayEquals(reqFrame, encode(encoder, DubboRequest.heartbeat(req.id())));

        byte[] respFrame = Vectors.frame("heartbeat.response");
        assertArrayEquals(respFrame, encode(encoder, DubboResponse.replyHeartbeat(req)));
        DubboResponse resp = assertInstanceOf(DubboResponse.class,
                decodeOne(Codecs.clientDecoder(Object.class), respFrame));
        assertTrue(resp.isHeartbeat());
        assertTrue(resp.isOk());
        assertEquals(req.id(), resp.id());
    }

    @Test
    void hessian2HeartbeatRequestAndResponse() {
        byte[] reqFrame = Vectors.hessian2("heartbeat.request");
        DubboRequest req = assertInstanceOf(DubboRequest.class, decodeOne(Codecs.serverDecoder(), reqFrame));
        assertTrue(req.isHeartbeat());
        assertTrue(req.isTwoWay());
        assertNull(req.eventData());
        assertEquals(DubboConstants.SERIALIZATION_HESSIAN2, req.serializationId());
        assertArrayEquals(reqFrame, encode(encoder, DubboRequest.heartbeat(req.id(), req.serializationId())));

        byte[] respFrame = Vectors.hessian2("heartbeat.response");
        assertArrayEquals(respFrame, encode(encoder, DubboResponse.replyHeartbeat(req)));
    }

    /** Every hessian2 frame's 16-byte header agrees with what {@code headers.txt} recorded at capture time. */
    @Test
    void hessian2FramesMatchTheirRecordedHeaders() {
        int checked = 0;
        for (String line : Vectors.text("hessian2/headers.txt").split("\n")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                    "(\\S+): (\\d+) bytes; flag=0x(\\p{XDigit}+) .* status=(\\d+) requestId=(-?\\d+) bodyLength=(\\d+)")
                    .matcher(line);
            if (!m.matches()) {
                continue;
            }
            byte[] frame = Vectors.hessian2(m.group(1));
            java.nio.ByteBuffer header = java.nio.ByteBuffer.wrap(frame);
            assertEquals(Integer.parseInt(m.group(2)), frame.length, m.group(1));
            assertEquals((short) 0xdabb, header.getShort(), m.group(1));
            assertEquals(Integer.parseInt(m.group(3), 16), header.get() & 0xff, m.group(1));
            assertEquals(Integer.parseInt(m.group(4)), header.get() & 0xff, m.group(1));
            assertEquals(Long.parseLong(m.group(5)), header.getLong(), m.group(1));
            assertEquals(Integer.parseInt(m.group(6)), header.getInt(), m.group(1));
            assertEquals(frame.length - 16, Integer.parseInt(m.group(6)), m.group(1));
            checked++;
        }
        assertEquals(10, checked, "headers.txt lists the ten captured frames");
    }

    @Test
    void readonlyEvent() {
        DubboRequest req = assertInstanceOf(DubboRequest.class, decodeOne(Codecs.clientDecoder(Object.class),
                READONLY_EVENT));
        assertEquals(0xcabfed80950581b8L, req.id());
        assertTrue(req.isEvent());
        assertFalse(req.isTwoWay());
        assertFalse(req.isHeartbeat());
        assertEquals("R", req.eventData());
        assertArrayEquals(READONLY_EVENT, encode(encoder, DubboRequest.readonlyEvent(req.id(), (byte) 23)));
    }

    static void assertDougLea(User u, long id, String suffix) {
        assertEquals(id, u.getId());
        assertEquals("Doug Lea" + suffix, u.getName());
        assertEquals(1, u.getSex());
        assertEquals(LocalDate.of(1968, 12, 8), u.getBirthday());
        assertEquals("dong.lea@gmail.com" + suffix, u.getEmail());
        assertEquals("18612345678" + suffix, u.getMobile());
        assertEquals("北京市 中关村 中关村大街1号 鼎好大厦 1605" + suffix, u.getAddress());
        assertEquals("https://www.baidu.com/img/bd_logo1.png" + suffix, u.getIcon());
        assertEquals(1, u.getStatus());
        assertEquals(PERMISSIONS, u.getPermissions());
        assertInstanceOf(LocalDateTime.class, u.getCreateTime());
        assertEquals(u.getCreateTime(), u.getUpdateTime());
    }
}
