package dev.sluice.benchmark.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.service.UserService;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The codec benchmark compares like with like: for every call and serialization, Sluice's path and Dubbo 3.3.6's
 * write the same frame bytes, and each path decodes the other's frames (and its own) to the values that were sent.
 */
@Timeout(120)
class CodecPathsTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "fastjson2, existUser", "fastjson2, createUser", "fastjson2, getUser", "fastjson2, listUser",
        "hessian2, existUser", "hessian2, createUser", "hessian2, getUser", "hessian2, listUser",
    })
    void bothPathsWriteTheSameFramesAndReadEachOthers(String serialization, String method) {
        CodecCall call = CodecCall.of(method);
        try (CodecPath sluice = CodecBenchmark.open("sluice", serialization, call);
             CodecPath dubbo = CodecBenchmark.open("dubbo", serialization, call)) {
            byte[] sluiceRequest = bytes(sluice.encodeRequest());
            byte[] dubboRequest = bytes(dubbo.encodeRequest());
            assertArrayEquals(dubboRequest, sluiceRequest, "request frames");
            byte[] sluiceResponse = bytes(sluice.encodeResponse());
            byte[] dubboResponse = bytes(dubbo.encodeResponse());
            assertArrayEquals(dubboResponse, sluiceResponse, "response frames");

            for (CodecPath reader : new CodecPath[] {sluice, dubbo}) {
                for (byte[] frame : new byte[][] {sluiceRequest, dubboRequest}) {
                    Object[] args = decodeRequest(reader, frame);
                    assertArrayEquals(call.arguments(), args, reader + " reading a request");
                    assertEquals(UserService.class.getName() + "#" + method, reader.lastTarget());
                    assertContains(SluicePath.attachments(), reader.lastAttachments());
                }
                for (byte[] frame : new byte[][] {sluiceResponse, dubboResponse}) {
                    assertEquals(comparable(call.result()), comparable(decodeResponse(reader, frame)),
                            reader + " reading a response");
                    assertContains(Map.of("dubbo", "2.0.2"), reader.lastAttachments());
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "fastjson2, createUser", "fastjson2, getUser", "fastjson2, listUser",
        "hessian2, createUser", "hessian2, getUser", "hessian2, listUser",
    })
    void theGenericPathDecodesToTheTypedArgumentsAndAnswersInTheGenericForm(String serialization, String method) {
        CodecCall call = CodecCall.of(method);
        try (CodecPath generic = CodecBenchmark.open("sluice-generic", serialization, call)) {
            Object[] args = decodeRequest(generic, bytes(generic.encodeRequest()));
            assertArrayEquals(call.arguments(), args, "the server's arguments, converted from maps");
            assertEquals(UserService.class.getName() + "#" + method, generic.lastTarget());
            assertEquals("true", generic.lastAttachments().get("generic"));
            Object value = decodeResponse(generic, bytes(generic.encodeResponse()));
            if (call.result() instanceof Boolean) {
                assertEquals(call.result(), value);
            } else {
                Map<?, ?> map = assertInstanceOf(Map.class, value, "a POJO comes back as a map");
                assertEquals(call.result().getClass().getName(), map.get("class"));
            }
        }
    }

    /** Page has no equals: its fields, with the element classes (a list of maps would not be a list of users). */
    private static Object comparable(Object v) {
        if (v instanceof Page) {
            Page<?> p = (Page<?>) v;
            List<Object> elements = new ArrayList<>();
            for (Object e : p.getResult()) {
                elements.add(e.getClass().getName());
                elements.add(e);
            }
            return List.of(p.getPageNo(), p.getTotal(), elements);
        }
        return v;
    }

    private static void assertContains(Map<String, Object> expected, Map<String, Object> actual) {
        for (Map.Entry<String, Object> e : expected.entrySet()) {
            assertEquals(e.getValue(), actual.get(e.getKey()), "attachment " + e.getKey() + " of " + actual);
        }
    }

    private static Object[] decodeRequest(CodecPath reader, byte[] frame) {
        ByteBuf buf = io.netty.buffer.Unpooled.directBuffer(frame.length).writeBytes(frame);
        try {
            Object[] args = reader.decodeRequest(buf);
            assertEquals(0, buf.readableBytes(), "the whole frame was read");
            return args;
        } finally {
            buf.release();
        }
    }

    private static Object decodeResponse(CodecPath reader, byte[] frame) {
        ByteBuf buf = io.netty.buffer.Unpooled.directBuffer(frame.length).writeBytes(frame);
        try {
            Object value = reader.decodeResponse(buf);
            assertEquals(0, buf.readableBytes(), "the whole frame was read");
            return value;
        } finally {
            buf.release();
        }
    }

    private static byte[] bytes(ByteBuf frame) {
        try {
            return ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
    }
}
