package dev.sluice.codec.dubbo;

import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;

/** Test helpers: a codec set up for dubbo-benchmark's UserService, and leak-free encode/decode calls. */
final class Codecs {
    static final String USER_SERVICE = UserService.class.getName();
    static final DubboMethod EXIST_USER = DubboMethod.of(USER_SERVICE, null, "existUser", "Ljava/lang/String;");
    static final DubboMethod GET_USER = DubboMethod.of(USER_SERVICE, null, "getUser", "J");
    static final DubboMethod CREATE_USER = DubboMethod.of(USER_SERVICE, null, "createUser",
            "Lorg/apache/dubbo/benchmark/bean/User;");
    static final DubboMethod LIST_USER = DubboMethod.of(USER_SERVICE, null, "listUser", "I");

    private Codecs() {
    }

    static ClassAllowlist userServiceAllowlist() {
        return ClassAllowlist.strict().register(UserService.class);
    }

    /** Server side: UserService exported without version. */
    static DubboDecoder serverDecoder(int payloadLimit) {
        ClassAllowlist allowlist = userServiceAllowlist();
        return new DubboDecoder(payloadLimit, allowlist,
                new InterfaceTypeResolver(allowlist).register(UserService.class, null));
    }

    static DubboDecoder serverDecoder() {
        return serverDecoder(8 * 1024 * 1024);
    }

    /** Client side: every response is read as {@code returnType}. */
    static DubboDecoder clientDecoder(Type returnType) {
        return new DubboDecoder(8 * 1024 * 1024, userServiceAllowlist(), DubboTypeResolver.forClient(id -> returnType));
    }

    static DubboDecoder clientDecoder(Map<Long, Type> returnTypes) {
        return new DubboDecoder(8 * 1024 * 1024, userServiceAllowlist(),
                DubboTypeResolver.forClient(returnTypes::get));
    }

    static final Type PAGE_OF_USER = new com.alibaba.fastjson2.TypeReference<Page<User>>() { }.getType();

    /** Encodes into a pooled buffer and returns the bytes; the buffer is released. */
    static byte[] encode(DubboEncoder encoder, Object message) {
        ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(encoder.sizeHint(message));
        try {
            encoder.encode(message, out);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    static byte[] encode(Object message) {
        return encode(new DubboEncoder(8 * 1024 * 1024), message);
    }

    /** Decodes every whole frame of {@code bytes} from a heap buffer; asserts nothing is left over. */
    static List<Object> decodeHeap(DubboDecoder decoder, byte[] bytes) {
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        try {
            List<Object> out = new ArrayList<>();
            decoder.decode(in, out);
            if (in.isReadable()) {
                throw new AssertionError(in.readableBytes() + " bytes left undecoded");
            }
            return out;
        } finally {
            in.release();
        }
    }

    /** The same from a pooled direct buffer (no backing array: the decoder copies into its scratch array). */
    static List<Object> decodeDirect(DubboDecoder decoder, byte[] bytes) {
        ByteBuf in = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length);
        try {
            in.writeBytes(bytes);
            List<Object> out = new ArrayList<>();
            decoder.decode(in, out);
            if (in.isReadable()) {
                throw new AssertionError(in.readableBytes() + " bytes left undecoded");
            }
            return out;
        } finally {
            in.release();
        }
    }

    static Object decodeOne(DubboDecoder decoder, byte[] frame) {
        List<Object> out = decodeDirect(decoder, frame);
        if (out.size() != 1) {
            throw new AssertionError("expected one message, got " + out);
        }
        return out.get(0);
    }

    /** What a benchmark-style Dubbo consumer attaches (filter=-default). */
    static Map<String, Object> benchmarkAttachments(String timeout) {
        Map<String, Object> m = new HashMap<>();
        m.put("path", USER_SERVICE);
        m.put("interface", USER_SERVICE);
        m.put("version", "0.0.0");
        m.put("timeout", timeout);
        return m;
    }

}
