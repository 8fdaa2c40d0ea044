package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.FrameTooLargeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** docs/reliability.md A8 and A9, and the encoder's other contracts. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EncoderTest {
    /** Has no {@code Serializable}: Dubbo's features refuse it. */
    static final class NotSerializable {
        int x = 1;
    }

    /** Encodes like the transport does: on failure the buffer is released and the exception rethrown. */
    static void encodeLikeTheTransport(DubboEncoder encoder, Object message) {
        ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(encoder.sizeHint(message));
        try {
            encoder.encode(message, out);
        } finally {
            out.release();
        }
    }

    @Test
    void nonSerializableArgumentFailsOnTheCallerThread() {
        DubboEncoder encoder = new DubboEncoder(8 * 1024 * 1024);
        DubboRequest req = DubboRequest.invocation(1L, Codecs.CREATE_USER, new Object[] {new NotSerializable()},
                null);
        DubboSerializationException e = assertThrows(DubboSerializationException.class,
                () -> encodeLikeTheTransport(encoder, req));
        assertTrue(e.getMessage().contains("argument 0") && e.getMessage().contains("NotSerializable"),
                e.getMessage());
        // Nothing poisoned: the same encoder goes on.
        byte[] ok = Codecs.encode(encoder, DubboRequest.invocation(2L, Codecs.EXIST_USER, new Object[] {"1"}, null));
        assertEquals(2L, ((DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), ok)).id());
    }

    @Test
    void requestOverThePayloadLimitThrowsWithSizeAndLimit() {
        DubboRequest req = DubboRequest.invocation(3L, Codecs.EXIST_USER, new Object[] {"x".repeat(300)},
                Codecs.benchmarkAttachments("1000"));
        int body = Codecs.encode(new DubboEncoder(0), req).length - 16;
        FrameTooLargeException e = assertThrows(FrameTooLargeException.class,
                () -> encodeLikeTheTransport(new DubboEncoder(200), req));
        assertEquals(body, e.size());
        assertEquals(200, e.limit());
        assertTrue(e.getMessage().contains(String.valueOf(body)) && e.getMessage().contains("200"), e.getMessage());
        // Exactly at the limit passes.
        encodeLikeTheTransport(new DubboEncoder(body), req);
    }

    @Test
    void responseOverThePayloadLimitBecomesStatus25WithTheSameId() {
        DubboResponse big = DubboResponse.value(0x1234L, (byte) 23, new UserServiceServerImpl().listUser(1),
                DubboResponse.DEFAULT_ATTACHMENTS);
        int body = Codecs.encode(new DubboEncoder(0), big).length - 16;
        byte[] frame = Codecs.encode(new DubboEncoder(1000), big);
        assertEquals(0x17, frame[2]);
        assertEquals(DubboConstants.STATUS_SERIALIZATION_ERROR, frame[3]);
        assertEquals(0x1234L, ByteBuffer.wrap(frame).getLong(4));
        DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class), frame);
        assertEquals(0x1234L, r.id());
        assertEquals(DubboConstants.STATUS_SERIALIZATION_ERROR, r.status());
        // The encoding stops once the body passes the limit, so the size named is what it had reached by then.
        String prefix = "Data length too large: ";
        String suffix = ", max payload: 1000";
        assertTrue(r.errorMessage().startsWith(prefix) && r.errorMessage().endsWith(suffix), r.errorMessage());
        long reached = Long.parseLong(r.errorMessage().substring(prefix.length(),
                r.errorMessage().length() - suffix.length()));
        assertTrue(reached > 1000 && reached <= body, "reached " + reached + " of a " + body + "-byte body");
    }

    /**
     * docs/reliability.md A9c: a value far over the payload limit is not encoded whole before the check. The buffer
     * the encoder fills (a pooled direct buffer, as the transport gives it) grows to about the limit and no further,
     * for every way a value is written: an ASCII string written by hand, a string fastjson2 writes, a list of
     * objects, and each of them in hessian2; the caller still gets status 25 with the request's id.
     */
    @Test
    void aValueFarOverThePayloadLimitIsNotEncodedInFull() {
        int limit = 64 * 1024;
        int size = 8 << 20; // 128 times the limit
        List<User> users = new ArrayList<>();
        for (int i = 0; users.size() * 64 < size; i++) {
            User u = new User();
            u.setId(i);
            u.setName("user-" + "n".repeat(40) + i);
            users.add(u);
        }
        Object[] values = {"a".repeat(size), "\u00e9".repeat(size / 2), users};
        for (byte ser : new byte[] {DubboConstants.SERIALIZATION_FASTJSON2, DubboConstants.SERIALIZATION_HESSIAN2}) {
            for (Object value : values) {
                String what = value.getClass().getSimpleName() + " in serialization " + ser;
                DubboResponse big = DubboResponse.value(0x4242L, ser, value, DubboResponse.DEFAULT_ATTACHMENTS);
                DubboEncoder encoder = new DubboEncoder(limit);
                ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(encoder.sizeHint(big));
                try {
                    encoder.encode(big, out);
                    int capacity = out.capacity();
                    assertTrue(capacity <= 2 * limit + 1024, what + ": the buffer grew to " + capacity
                            + " bytes for a payload limit of " + limit);
                    DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class),
                            ByteBufUtil.getBytes(out));
                    assertEquals(0x4242L, r.id(), what);
                    assertEquals(DubboConstants.STATUS_SERIALIZATION_ERROR, r.status(), what);
                    assertTrue(r.errorMessage().startsWith("Data length too large: ")
                            && r.errorMessage().endsWith(", max payload: " + limit), what + ": " + r.errorMessage());
                } finally {
                    out.release();
                }
            }
        }
    }

    @Test
    void responseEncodeFailureBecomesStatus50AndKeepsEarlierBytes() {
        ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            byte[] before = {9, 9, 9};
            out.writeBytes(before);
            new DubboEncoder(8 << 20).encode(DubboResponse.value(7L, (byte) 23, new NotSerializable(), null), out);
            byte[] all = ByteBufUtil.getBytes(out);
            assertArrayEquals(before, java.util.Arrays.copyOf(all, 3), "rewound to the frame start, not to 0");
            byte[] frame = java.util.Arrays.copyOfRange(all, 3, all.length);
            assertEquals(frame.length - 16, ByteBuffer.wrap(frame).getInt(12), "length patched");
            DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class), frame);
            assertEquals(7L, r.id());
            assertEquals(DubboConstants.STATUS_BAD_RESPONSE, r.status());
            assertTrue(r.errorMessage().startsWith("Failed to send response: ")
                    && r.errorMessage().contains("NotSerializable"), r.errorMessage());
        } finally {
            out.release();
        }
    }

    @Test
    void errorResponsesRoundTripInBothSerializations() {
        String text = "org.apache.dubbo.rpc.RpcException: 找不到服务 😀 " + "z".repeat(1500);
        for (byte ser : new byte[] {DubboConstants.SERIALIZATION_FASTJSON2, DubboConstants.SERIALIZATION_HESSIAN2}) {
            byte[] frame = Codecs.encode(DubboResponse.error(11L, ser, DubboConstants.STATUS_SERVICE_ERROR, text));
            assertEquals(ser, frame[2]);
            assertEquals(DubboConstants.STATUS_SERVICE_ERROR, frame[3]);
            DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class), frame);
            assertEquals(11L, r.id());
            assertEquals(ser, r.serializationId());
            assertEquals(DubboConstants.STATUS_SERVICE_ERROR, r.status());
            assertEquals(text, r.errorMessage());
        }
        // A result is answered in the caller's serialization, hessian2 included.
        byte[] frame = Codecs.encode(DubboResponse.value(12L, DubboConstants.SERIALIZATION_HESSIAN2, "v", null));
        DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class), frame);
        assertTrue(r.isOk(), r::toString);
        assertEquals("v", r.value());
        assertEquals(DubboConstants.SERIALIZATION_HESSIAN2, r.serializationId());
        // A result hessian2 cannot write (not Serializable): the caller still gets an answer, in hessian2.
        frame = Codecs.encode(DubboResponse.value(13L, DubboConstants.SERIALIZATION_HESSIAN2, new NotSerializable(),
                null));
        r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class), frame);
        assertEquals(DubboConstants.STATUS_BAD_RESPONSE, r.status());
        assertEquals(DubboConstants.SERIALIZATION_HESSIAN2, r.serializationId());
        assertTrue(r.errorMessage().contains(NotSerializable.class.getName()), r.errorMessage());
    }

    @Test
    void brokenRequestIsAnsweredWithItsStatusAndId() {
        DubboRequest broken = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(),
                FramingTest.patch(Vectors.frame("existUser.request"), 2, 0xc0 | 9));
        byte[] frame = Codecs.encode(DubboResponse.replyError(broken, broken.brokenStatus(), broken.errorMessage()));
        assertEquals(DubboConstants.STATUS_BAD_REQUEST, frame[3]);
        assertEquals(broken.id(), ByteBuffer.wrap(frame).getLong(4));
        DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class), frame);
        assertEquals(broken.errorMessage(), r.errorMessage());
        assertThrows(IllegalArgumentException.class, () -> Codecs.encode(broken), "a broken request is not sent");
    }

    @Test
    void attachmentsOfAnyMapTypeTravelAsHashMap() {
        Map<String, Object> linked = new LinkedHashMap<>();
        linked.put("group", "g1");
        linked.put("timeout", "3000");
        for (Map<String, Object> m : List.of(linked, Map.<String, Object>of("k", "v"), Map.<String, Object>of())) {
            DubboRequest req = DubboRequest.invocation(13L, Codecs.GET_USER, new Object[] {1L}, m);
            DubboRequest back = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), Codecs.encode(req));
            assertEquals(m, back.attachments());
            // read as a HashMap: the decoder hands out ASCII attachments read-only, over the HashMap it read
            Map<String, Object> read = back.attachments() instanceof EncodedAttachments
                    ? ((EncodedAttachments) back.attachments()).plain() : back.attachments();
            assertInstanceOf(java.util.HashMap.class, read);
        }
        DubboRequest grouped = DubboRequest.invocation(14L, Codecs.GET_USER, new Object[] {1L}, linked);
        assertEquals("g1", ((DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), Codecs.encode(grouped))).group());
    }

    @Test
    void handWrittenAttachmentsMatchFastjsonAndOtherValuesFallBack() {
        Map<String, Object> ascii = new java.util.HashMap<>(Codecs.benchmarkAttachments("1000"));
        ascii.put("long.key." + "k".repeat(60), "v".repeat(3000));
        ascii.put("", "");
        byte[] frame = Codecs.encode(DubboRequest.invocation(20L, Codecs.GET_USER, new Object[] {1L}, ascii));
        byte[] fastjson = com.alibaba.fastjson2.JSONB.toBytes(ascii, DubboEncoder.WRITER_FEATURES);
        byte[] tail = java.util.Arrays.copyOfRange(frame, frame.length - fastjson.length, frame.length);
        assertArrayEquals(fastjson, tail, "same bytes as fastjson2 with Dubbo's features");
        assertEquals(ascii, ((DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), frame)).attachments());

        Map<String, Object> mixed = new java.util.HashMap<>();
        mixed.put("cjk", "中文");
        mixed.put("latin1", "café");
        mixed.put("int", 5);
        mixed.put("null", null);
        mixed.put("nested", new java.util.HashMap<>(Map.of("a", "b")));
        DubboRequest back = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(),
                Codecs.encode(DubboRequest.invocation(21L, Codecs.GET_USER, new Object[] {1L}, mixed)));
        assertFalse(back.isBroken(), back::toString);
        assertEquals(mixed, back.attachments());
    }

    @Test
    void protocolVersionDecidesResponseAttachments() {
        DubboRequest v202 = DubboRequest.invocation(1L, Codecs.GET_USER, new Object[] {1L}, null);
        DubboRequest v201 = DubboRequest.invocation(1L, DubboMethod.of("2.0.1", Codecs.USER_SERVICE, null, "getUser",
                "J"), new Object[] {1L}, null);
        DubboRequest v336 = DubboRequest.invocation(1L, DubboMethod.of("3.3.6", Codecs.USER_SERVICE, null,
                "getUser", "J"), new Object[] {1L}, null);
        assertEquals(DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS, DubboResponse.replyValue(v202, 1).resultFlag());
        assertEquals(DubboConstants.RESPONSE_VALUE, DubboResponse.replyValue(v201, 1).resultFlag());
        assertEquals(DubboConstants.RESPONSE_NULL_VALUE, DubboResponse.replyValue(v336, null).resultFlag());
        assertEquals(DubboConstants.RESPONSE_NULL_VALUE_WITH_ATTACHMENTS,
                DubboResponse.replyValue(v202, null).resultFlag());
        assertEquals(DubboConstants.RESPONSE_WITH_EXCEPTION,
                DubboResponse.replyException(v201, new IllegalStateException()).resultFlag());
        assertTrue(DubboConstants.supportsResponseAttachments("2.0.99"));
        assertTrue(!DubboConstants.supportsResponseAttachments("2.0.100")
                && !DubboConstants.supportsResponseAttachments("")
                        && !DubboConstants.supportsResponseAttachments(null));
        // Every flag decodes back.
        for (DubboResponse resp : List.of(DubboResponse.replyValue(v202, 1L), DubboResponse.replyValue(v201, 1L),
                DubboResponse.replyValue(v202, null), DubboResponse.replyValue(v201, null),
                DubboResponse.replyException(v202, new IllegalStateException("x")),
                DubboResponse.replyException(v201, new IllegalStateException("x")))) {
            DubboResponse back = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(long.class),
                    Codecs.encode(resp));
            assertEquals(resp.resultFlag(), back.resultFlag());
            assertEquals(resp.value(), back.value());
            assertEquals(resp.attachments(), back.attachments());
            assertEquals(resp.hasException(), back.exception() != null);
        }
    }

    @Test
    void concurrentEncodersProduceIdenticalBytes() throws Exception {
        DubboEncoder encoder = new DubboEncoder(8 << 20);
        User user = new UserServiceServerImpl().getUser(42);
        DubboRequest req = DubboRequest.invocation(15L, Codecs.CREATE_USER, new Object[] {user},
                Codecs.benchmarkAttachments("1000"));
        byte[] expected = Codecs.encode(encoder, req);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Boolean>> tasks = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                tasks.add(() -> {
                    for (int i = 0; i < 500; i++) {
                        if (!java.util.Arrays.equals(expected, Codecs.encode(encoder, req))) {
                            return false;
                        }
                    }
                    return true;
                });
            }
            for (Future<Boolean> f : pool.invokeAll(tasks)) {
                assertTrue(f.get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void eventsAndOneWayFlags() {
        byte[] oneWay = Codecs.encode(DubboRequest.invocation(16L, false, (byte) 23, Codecs.GET_USER,
                new Object[] {1L}, null));
        assertEquals((byte) 0x97, oneWay[2]);
        DubboRequest back = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), oneWay);
        assertTrue(!back.isTwoWay() && !back.isBroken());
        assertEquals((byte) 0xf7, Codecs.encode(DubboRequest.heartbeat(17L))[2]);
        assertEquals((byte) 0xb7, Codecs.encode(DubboRequest.writeableEvent(18L, (byte) 23))[2]);
        assertEquals("W", ((DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(),
                Codecs.encode(DubboRequest.writeableEvent(18L, (byte) 23)))).eventData());
        byte[] hessian2 = Codecs.encode(DubboRequest.invocation(19L, true, DubboConstants.SERIALIZATION_HESSIAN2,
                Codecs.GET_USER, new Object[] {1L}, null));
        assertEquals((byte) 0xc2, hessian2[2]);
        DubboRequest read = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), hessian2);
        assertArrayEquals(new Object[] {1L}, read.arguments());
        assertThrows(IllegalArgumentException.class, () -> Codecs.encode(DubboRequest.invocation(20L, true,
                (byte) 9, Codecs.GET_USER, new Object[] {1L}, null)), "no writer for serialization id 9");
        assertThrows(IllegalArgumentException.class, () -> Codecs.encode("not a message"));
    }
}
