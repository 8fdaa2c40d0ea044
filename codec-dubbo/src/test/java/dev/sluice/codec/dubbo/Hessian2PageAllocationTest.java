package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Heap allocated per hessian2 listUser response (dubbo-benchmark's page of 15 users), measured as the calling
 * thread's allocated bytes over many frames, through the codec as {@code SluiceServer} and {@code SluiceClient} set
 * it up: the encode allocates almost nothing beyond the frame's pooled buffer (no handle objects, no per-object
 * serializer state), and the client's decode plus {@code takeValue} allocates about what the page itself is, measured
 * the same way by building it in the service implementation.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class Hessian2PageAllocationTest {
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int FRAMES = 3000;

    private final ClassAllowlist allowlist = Codecs.userServiceAllowlist();
    private final DubboEncoder encoder = DubboCodec.builder().allowlist(allowlist).build().encoder();
    private final Page<User> page = new UserServiceServerImpl().listUser(1);
    private final DubboResponse response = DubboResponse.value(1, DubboConstants.SERIALIZATION_HESSIAN2, page,
            DubboResponse.DEFAULT_ATTACHMENTS);

    private static long allocated() {
        return MX.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void encodingAListUserPageAllocatesUnderOneKilobyte() {
        // A wrapped array: a buffer the (paranoid) leak detector does not track, whose records would be counted.
        ByteBuf out = Unpooled.wrappedBuffer(new byte[64 * 1024]);
        try {
            for (int i = 0; i < FRAMES; i++) {
                out.clear();
                encoder.encode(response, out); // warm-up: compiled code, filled caches
            }
            long before = allocated();
            for (int i = 0; i < FRAMES; i++) {
                out.clear();
                encoder.encode(response, out);
            }
            long perFrame = (allocated() - before) / FRAMES;
            assertTrue(perFrame < 1024, "bytes allocated per listUser response encode: " + perFrame);
        } finally {
            out.release();
        }
    }

    @Test
    void decodingAListUserPageAllocatesAboutWhatThePageIs() {
        DubboDecoder client = (DubboDecoder) DubboCodec.builder().allowlist(allowlist).deferResponseValues(true)
                .build().newDecoder(null);
        ByteBuf in = Unpooled.wrappedBuffer(Codecs.encode(encoder, response)); // untracked, as above
        List<Object> out = new ArrayList<>(1);
        UserServiceServerImpl service = new UserServiceServerImpl();
        try {
            for (int i = 0; i < FRAMES; i++) {
                decodeOnce(client, in, out);
                service.listUser(i);
            }
            long before = allocated();
            for (int i = 0; i < FRAMES; i++) {
                decodeOnce(client, in, out);
            }
            long decode = (allocated() - before) / FRAMES;
            before = allocated();
            for (int i = 0; i < FRAMES; i++) {
                out.add(service.listUser(i));
                out.clear();
            }
            long build = (allocated() - before) / FRAMES;
            assertTrue(decode < build * 13 / 10, "bytes allocated per listUser response decode and take: " + decode
                    + ", building the page: " + build);
        } finally {
            in.release();
            client.close();
        }
    }

    private void decodeOnce(DubboDecoder client, ByteBuf in, List<Object> out) {
        in.readerIndex(0);
        client.decode(in, out);
        assertEquals(1, out.size());
        DubboResponse r = (DubboResponse) out.get(0);
        out.clear();
        Object v = r.takeValue(Codecs.PAGE_OF_USER);
        assertEquals(15, ((Page<?>) v).getResult().size());
    }
}
