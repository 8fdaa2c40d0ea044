package dev.sluice.codec.dubbo.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.codec.dubbo.DubboDecoder;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.DubboSerializationException;
import dev.sluice.codec.dubbo.TestBytes;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes the body decoding of {@link DubboDecoder} (fastjson2 items, hessian2 events, result flags, attachments,
 * typed values against the allowlist) behind a well-formed header, so every input reaches the body decoder.
 *
 * <p>Input layout (see {@link #header}): byte 0 picks the frame kind, serialization, event flag and status; byte 1
 * is the request id (whose low 3 bits pick the type a client expects, {@link FuzzDecoders#RETURN_TYPES}); the rest
 * is the body. Seeds are the bodies of the golden frames and of encoded {@code TypesService} calls
 * ({@link SeedCorpus}). Properties, for a server- and a client-side decoder:
 * <ul>
 *   <li>no exception at all: a body the decoder cannot read becomes a broken request (status 40) or a failed
 *       response (status 90) carrying the frame's id, so the peer or the caller gets an answer;</li>
 *   <li>exactly one message per frame, of the frame's kind, with its id and two-way flag; an error status in the
 *       header is kept; a body over the payload limit is rejected from the header (status 40 / 90);</li>
 *   <li>the decode allocates at most {@link FuzzDecoders#allocationBudget} of heap for the frame's bytes;</li>
 *   <li>the decoder keeps no reference to its input, which is released.</li>
 * </ul>
 * Jazzer's own sanitizers watch class loading: a typed value that made the decoder load a class the fuzzer named
 * would be reported as a finding.
 */
@Timeout(30)
class BodyDecoderFuzzTest {
    private static final int[] SERIALIZATIONS = {23, 23, 2, 6};
    private static final int[] STATUSES = {20, 20, 20, 20, 25, 40, 70, 90};

    /** The header for control byte {@code control} and id byte {@code id} around a body of {@code length}. */
    static byte[] header(int control, int id, int length) {
        int kind = control & 3;
        int ser = SERIALIZATIONS[(control >> 2) & 3];
        boolean bit7 = (control & 0x80) != 0;
        int flags;
        int status = 0;
        switch (kind) {
            case 0:
                flags = 0xc0 | ser;
                break;
            case 1:
                flags = 0x80 | ser;
                break;
            case 2:
                flags = 0xa0 | (bit7 ? 0x40 : 0) | ser;
                break;
            default:
                flags = (bit7 ? 0x20 : 0) | ser;
                status = STATUSES[(control >> 4) & 7];
                break;
        }
        return FuzzDecoders.header(flags, status, (byte) id, length);
    }

    @FuzzTest(maxDuration = "15s")
    void bodies(byte[] data) {
        if (data.length < 2) {
            return;
        }
        byte[] frame = TestBytes.concat(header(data[0] & 0xff, data[1], data.length - 2),
                java.util.Arrays.copyOfRange(data, 2, data.length));
        check(FuzzDecoders::server, frame);
        check(FuzzDecoders::client, frame);
        checkDeferred(frame);
    }

    /**
     * A client that parses result values on the caller's thread must agree with one that parses them while
     * decoding: where the eager decoder produced a value, the deferred read produces one of the same class; where it
     * failed the response (90), the deferred read throws {@link DubboSerializationException} and nothing else; both
     * within the same allocation budget.
     */
    private static void checkDeferred(byte[] frame) {
        if ((frame[2] & DubboConstants.FLAG_REQUEST) != 0) {
            return;
        }
        DubboResponse eager = (DubboResponse) decode(FuzzDecoders.client(), frame);
        long before = FuzzDecoders.allocated();
        Object[] read = decodeAndRead(frame);
        long allocated = FuzzDecoders.allocated() - before;
        if (allocated > FuzzDecoders.allocationBudget(frame.length)) {
            before = FuzzDecoders.allocated();
            read = decodeAndRead(frame);
            allocated = FuzzDecoders.allocated() - before;
            if (allocated > FuzzDecoders.allocationBudget(frame.length)) {
                throw new AssertionError("decoding and reading a " + frame.length + "-byte frame allocated "
                        + allocated + " bytes of heap (budget " + FuzzDecoders.allocationBudget(frame.length) + ")");
            }
        }
        Object[] result = read;
        DubboResponse deferred = (DubboResponse) result[0];
        if (!deferred.isValueDeferred()) {
            assertEquals(FuzzDecoders.describe(eager), FuzzDecoders.describe(deferred));
            return;
        }
        if (eager.status() == DubboConstants.STATUS_OK) {
            assertNull(result[2], () -> "the eager decoder read " + eager + " but the deferred read failed: "
                    + result[2]);
            Object value = eager.value();
            assertEquals(value == null ? null : value.getClass(), result[1] == null ? null : result[1].getClass());
        } else {
            assertEquals(DubboConstants.STATUS_CLIENT_ERROR, eager.status(), eager::toString);
            assertInstanceOf(DubboSerializationException.class, result[2],
                    () -> "the eager decoder failed " + eager + " but the deferred read returned " + result[1]);
        }
    }

    /** {response, value or null, DubboSerializationException or null}; any other exception escapes (a finding). */
    private static Object[] decodeAndRead(byte[] frame) {
        DubboResponse r = assertInstanceOf(DubboResponse.class, decode(FuzzDecoders.deferringClient(), frame));
        if (!r.isValueDeferred()) {
            return new Object[] {r, null, null};
        }
        try {
            return new Object[] {r, r.readValue(FuzzDecoders.RETURN_TYPES[(int) (r.id() & 7)]), null};
        } catch (DubboSerializationException e) {
            return new Object[] {r, null, e};
        }
    }

    private static void check(Supplier<DubboDecoder> decoders, byte[] frame) {
        long before = FuzzDecoders.allocated();
        Object m = decode(decoders.get(), frame);
        long allocated = FuzzDecoders.allocated() - before;
        if (allocated > FuzzDecoders.allocationBudget(frame.length)) {
            // The first decode of a type builds fastjson2 readers: measure again, warm.
            before = FuzzDecoders.allocated();
            decode(decoders.get(), frame);
            allocated = FuzzDecoders.allocated() - before;
            if (allocated > FuzzDecoders.allocationBudget(frame.length)) {
                throw new AssertionError("decoding a " + frame.length + "-byte frame allocated " + allocated
                        + " bytes of heap (budget " + FuzzDecoders.allocationBudget(frame.length) + ")");
            }
        }
        FuzzDecoders.describe(m); // only plain values
        int flags = frame[2] & 0xff;
        int status = frame[3] & 0xff;
        long id = frame[11];
        boolean overLimit = frame.length - FuzzDecoders.HEADER > FuzzDecoders.LIMIT;
        if ((flags & DubboConstants.FLAG_REQUEST) != 0) {
            DubboRequest r = assertInstanceOf(DubboRequest.class, m);
            assertEquals(id, r.id());
            assertEquals((flags & DubboConstants.FLAG_TWO_WAY) != 0, r.isTwoWay());
            assertEquals((flags & DubboConstants.FLAG_EVENT) != 0, r.isEvent(), r::toString);
            assertTrue(r.isBroken() || !overLimit, "a body over the payload limit is rejected from the header");
            if (r.isBroken()) {
                assertEquals(DubboConstants.STATUS_BAD_REQUEST, r.brokenStatus());
                assertTrue(r.errorMessage() != null && !r.errorMessage().isEmpty());
            }
        } else {
            DubboResponse r = assertInstanceOf(DubboResponse.class, m);
            assertEquals(id, r.id());
            if (overLimit) {
                assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status(), "rejected from the header");
            } else if ((flags & DubboConstants.FLAG_EVENT) != 0) {
                assertTrue(r.isHeartbeat() || r.status() == DubboConstants.STATUS_CLIENT_ERROR, r::toString);
            } else if (status != DubboConstants.STATUS_OK) {
                assertEquals(status, r.status(), "an error status is passed on");
            } else {
                assertTrue(r.status() == DubboConstants.STATUS_OK || r.status() == DubboConstants.STATUS_CLIENT_ERROR,
                        r::toString);
            }
        }
    }

    private static Object decode(DubboDecoder decoder, byte[] frame) {
        // Direct, as the transport's cumulation, and untracked by the PARANOID leak detector, whose stack trace per
        // access would slow fuzzing down; the reference count is checked by hand.
        ByteBuf in = new UnpooledDirectByteBuf(UnpooledByteBufAllocator.DEFAULT, frame.length, frame.length);
        try {
            in.writeBytes(frame);
            List<Object> out = new ArrayList<>();
            decoder.decode(in, out); // a well-formed header: nothing may be thrown
            assertEquals(1, out.size(), "one message per frame");
            assertEquals(0, in.readableBytes(), "the whole frame is consumed");
            return out.get(0);
        } finally {
            assertEquals(1, in.refCnt(), "the decoder keeps no reference to its input");
            in.release();
            decoder.close();
        }
    }
}
