package dev.sluice.codec.dubbo.fuzz;

import com.alibaba.fastjson2.TypeReference;
import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboDecoder;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.DubboTypeResolver;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.codec.dubbo.model.Box;
import dev.sluice.codec.dubbo.model.ProbeService;
import dev.sluice.codec.dubbo.model.TypesService;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;

/**
 * What the fuzz targets share: decoders set up as a server and as a client with a small payload limit, the
 * allocation meter, and a summary of a decoded message that two decodings of the same bytes must agree on.
 * Single-threaded: libFuzzer runs one input at a time on one thread.
 */
final class FuzzDecoders {
    /** Small, so "never buffers more than the limit" is cheap to hit; the largest golden vector body (3581) fits. */
    static final int LIMIT = 4096;
    static final int HEADER = 16;
    /** The version {@link SeedCorpus} exports {@link TypesService} under. */
    static final String TYPES_VERSION = "1.0.0";

    /**
     * Heap a decode may allocate per byte it is fed, on top of {@link #ALLOCATION_SLACK}: fastjson2 builds objects,
     * strings (UTF-16 doubles them) and stack traces from the bytes. A value that declares more elements or bytes
     * than it carries must not allocate for them.
     */
    static final long ALLOCATION_PER_BYTE = 64;
    static final long ALLOCATION_SLACK = 4L << 20;

    /** What the client expects, chosen by the low 3 bits of the response id. */
    static final Type[] RETURN_TYPES = {
        Object.class,
        User.class,
        new TypeReference<Page<User>>() { }.getType(),
        boolean.class,
        new TypeReference<List<User>>() { }.getType(),
        int[].class,
        new TypeReference<Map<String, Object>>() { }.getType(),
        new TypeReference<Box<User>>() { }.getType(),
    };

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private FuzzDecoders() {
    }

    // Built once: registering walks the interfaces by reflection. Both are thread-safe and shared by decoders, as a
    // server shares them across connections.
    private static final ClassAllowlist SERVER_ALLOWLIST = ClassAllowlist.strict();
    private static final InterfaceTypeResolver SERVICES = new InterfaceTypeResolver(SERVER_ALLOWLIST)
            .register(UserService.class, null)
            .register(TypesService.class, TYPES_VERSION)
            .register(ProbeService.class, null);
    private static final ClassAllowlist CLIENT_ALLOWLIST = ClassAllowlist.strict().register(UserService.class)
            .register(TypesService.class).register(ProbeService.class);
    private static final DubboTypeResolver EXPECTED = DubboTypeResolver.forClient(id -> RETURN_TYPES[(int) (id & 7)]);

    /** A server's decoder: UserService (no version), TypesService (1.0.0) and ProbeService exported. */
    static DubboDecoder server() {
        return new DubboDecoder(LIMIT, SERVER_ALLOWLIST, SERVICES);
    }

    /** A client's decoder referring to the same three services. */
    static DubboDecoder client() {
        return new DubboDecoder(LIMIT, CLIENT_ALLOWLIST, EXPECTED);
    }

    /** A client's decoder that leaves result values to {@link DubboResponse#readValue}, as SluiceClient does. */
    static DubboDecoder deferringClient() {
        return new DubboDecoder(LIMIT, CLIENT_ALLOWLIST, DubboTypeResolver.NONE, true);
    }

    static byte[] header(int flags, int status, long id, int length) {
        return ByteBuffer.allocate(HEADER).putShort((short) 0xdabb).put((byte) flags).put((byte) status).putLong(id)
                .putInt(length).array();
    }


    /** Bytes this thread has allocated on the heap so far. */
    static long allocated() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    static long allocationBudget(long bytesFed) {
        return ALLOCATION_PER_BYTE * bytesFed + ALLOCATION_SLACK;
    }

    /**
     * The facts about a decoded message that do not depend on how its bytes arrived (error texts may quote offsets
     * into the decoder's working array, which differ between a heap and a direct cumulation, so they are left out).
     */
    static String describe(Object m) {
        if (m instanceof DubboRequest) {
            DubboRequest r = (DubboRequest) m;
            StringBuilder b = new StringBuilder("request id=").append(r.id()).append(" twoWay=").append(r.isTwoWay())
                    .append(" event=").append(r.isEvent()).append(" heartbeat=").append(r.isHeartbeat())
                    .append(" ser=").append(r.serializationId());
            if (r.isBroken()) {
                return b.append(" broken=").append(r.brokenStatus()).toString();
            }
            if (r.isEvent()) {
                return b.append(" data=").append(r.eventData()).toString();
            }
            b.append(' ').append(r.servicePath()).append(':').append(r.serviceVersion()).append('#')
                    .append(r.methodName()).append('(').append(r.parameterTypesDesc()).append(") args=");
            for (Object a : r.arguments()) {
                b.append(a == null ? "null" : a.getClass().getName()).append(',');
            }
            return b.append(" attachments=").append(r.attachments() == null ? -1 : r.attachments().size()).toString();
        }
        if (m instanceof DubboResponse) {
            DubboResponse r = (DubboResponse) m;
            StringBuilder b = new StringBuilder("response id=").append(r.id()).append(" status=").append(r.status())
                    .append(" heartbeat=").append(r.isHeartbeat()).append(" ser=").append(r.serializationId());
            if (r.isOk() && !r.isHeartbeat()) {
                b.append(" flag=").append(r.resultFlag());
                Object v = r.hasException() ? r.exception() : r.value();
                b.append(" value=").append(v == null ? "null" : v.getClass().getName());
            }
            return b.toString();
        }
        throw new AssertionError("the decoder emitted " + (m == null ? "null" : m.getClass().getName())
                + "; only DubboRequest and DubboResponse (which hold no buffers) are allowed");
    }
}
