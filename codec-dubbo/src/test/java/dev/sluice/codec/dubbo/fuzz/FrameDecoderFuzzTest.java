package dev.sluice.codec.dubbo.fuzz;

import static dev.sluice.codec.dubbo.fuzz.FuzzDecoders.HEADER;
import static dev.sluice.codec.dubbo.fuzz.FuzzDecoders.LIMIT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.codec.dubbo.DubboDecoder;
import dev.sluice.codec.dubbo.DubboProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes {@link DubboDecoder}'s framing: the input is a raw byte stream as a peer would send it (seeds: the Dubbo
 * 3.3.6 golden frames, alone, pipelined, truncated, oversized, with broken headers; see {@link SeedCorpus}).
 *
 * <p>For a server-side and a client-side decoder, the stream is decoded twice: whole from a heap buffer, and in
 * pseudo-random chunks (1 byte to a few KiB, chosen from the input's hash) through a pooled direct cumulation the
 * way the transport's {@code ByteToMessageDecoder} feeds it. Properties:
 * <ul>
 *   <li>the only exception is {@link DubboProtocolException} (the stream is not Dubbo; the transport closes);
 *       anything else escaping is a finding;</li>
 *   <li>both decodings yield the same messages (ids, kinds, statuses, types) and fail at the same point;</li>
 *   <li>after every decode call the cumulation keeps less than header + payload limit bytes: a header declaring a
 *       huge body is answered from the header and the body skipped, never buffered;</li>
 *   <li>one decode call allocates at most {@link FuzzDecoders#allocationBudget} of heap for the bytes it was
 *       given: nothing is sized from a declared length or count that the bytes do not back;</li>
 *   <li>messages are plain values (no buffers), the decoder keeps no reference to its input, and every buffer is
 *       released.</li>
 * </ul>
 *
 * <p>Without {@code JAZZER_FUZZ} this replays the seeds and any committed findings as regression tests.
 */
@Timeout(30)
class FrameDecoderFuzzTest {

    @FuzzTest(maxDuration = "15s")
    void frames(byte[] stream) {
        check(FuzzDecoders::server, stream, 1);
        check(FuzzDecoders::client, stream, 2);
    }

    private static void check(Supplier<DubboDecoder> decoders, byte[] stream, int salt) {
        Outcome whole = decodeWhole(decoders.get(), stream);
        Outcome pieces = decodeInPieces(decoders.get(), stream,
                new SplittableRandom(Arrays.hashCode(stream) * 31L + salt));
        if (whole.overBudget != null || pieces.overBudget != null) {
            // The first decode of a type builds fastjson2 readers (reflection, caches): measure again, warm.
            Outcome again = decodeWhole(decoders.get(), stream);
            Outcome againPieces = decodeInPieces(decoders.get(), stream,
                    new SplittableRandom(Arrays.hashCode(stream) * 31L + salt));
            if (again.overBudget != null || againPieces.overBudget != null) {
                throw new AssertionError(again.overBudget != null ? again.overBudget : againPieces.overBudget);
            }
        }
        assertEquals(whole.messages, pieces.messages, "the same bytes decode the same however they are split");
        assertEquals(whole.protocolError, pieces.protocolError, "a protocol error is found at the same point");
    }

    /** The result of decoding one stream. */
    static final class Outcome {
        final List<String> messages = new ArrayList<>();
        boolean protocolError;
        String overBudget;
    }

    private static Outcome decodeWhole(DubboDecoder decoder, byte[] stream) {
        Outcome o = new Outcome();
        ByteBuf in = Unpooled.wrappedBuffer(stream);
        try {
            decodeOnce(decoder, in, o, stream.length);
        } finally {
            in.release();
            decoder.close();
        }
        return o;
    }

    private static Outcome decodeInPieces(DubboDecoder decoder, byte[] stream, SplittableRandom random) {
        Outcome o = new Outcome();
        int[] maxChunks = {1, 7, 64, 700, 5000};
        int maxChunk = maxChunks[random.nextInt(maxChunks.length)];
        // A direct buffer (no backing array: the decoder copies each body into its scratch array) that the leak
        // detector does not track: PARANOID tracking records a stack trace on every access and would slow fuzzing
        // down a hundredfold. The reference count is checked by hand instead.
        ByteBuf cumulation = new UnpooledDirectByteBuf(UnpooledByteBufAllocator.DEFAULT, 256, Integer.MAX_VALUE);
        try {
            for (int off = 0; off < stream.length && !o.protocolError; ) {
                int n = Math.min(stream.length - off, 1 + random.nextInt(maxChunk));
                cumulation.writeBytes(stream, off, n);
                off += n;
                decodeOnce(decoder, cumulation, o, cumulation.readableBytes());
                if (!o.protocolError && cumulation.readableBytes() >= HEADER + LIMIT) {
                    throw new AssertionError("the decoder kept " + cumulation.readableBytes() + " bytes buffered;"
                            + " at most header + limit - 1 = " + (HEADER + LIMIT - 1) + " may wait for more");
                }
                cumulation.discardReadBytes();
            }
        } finally {
            if (cumulation.refCnt() != 1) {
                throw new AssertionError("the decoder kept a reference to the cumulation: refCnt "
                        + cumulation.refCnt());
            }
            cumulation.release();
            decoder.close();
        }
        return o;
    }

    private static void decodeOnce(DubboDecoder decoder, ByteBuf in, Outcome o, long bytesFed) {
        List<Object> out = new ArrayList<>();
        long before = FuzzDecoders.allocated();
        try {
            decoder.decode(in, out);
        } catch (DubboProtocolException e) {
            o.protocolError = true;
        }
        long allocated = FuzzDecoders.allocated() - before;
        if (allocated > FuzzDecoders.allocationBudget(bytesFed) && o.overBudget == null) {
            o.overBudget = "one decode call allocated " + allocated + " bytes of heap for " + bytesFed
                    + " input bytes (budget " + FuzzDecoders.allocationBudget(bytesFed) + ")";
        }
        for (Object m : out) {
            o.messages.add(FuzzDecoders.describe(m));
        }
    }
}
