package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Attachments encoded once: a proxy's constant attachments are written from their own bytes, exactly the bytes the
 * encoder writes for the same map, in both serializations; a decoder that reads the same attachment bytes again on a
 * connection returns the same immutable instance without decoding, and anything else as before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EncodedAttachmentsTest {
    private static final Object[] ARGS = {"user-1"};

    @Test
    void encodedAttachmentsWriteTheSameFrameAsTheMapInBothSerializations() {
        Map<String, Object> plain = Codecs.benchmarkAttachments("5000");
        plain.put("group", "g1");
        EncodedAttachments encoded = EncodedAttachments.of(plain);
        assertEquals(plain, encoded);
        for (byte ser : new byte[] {DubboConstants.SERIALIZATION_FASTJSON2, DubboConstants.SERIALIZATION_HESSIAN2}) {
            byte[] fromMap = Codecs.encode(DubboRequest.invocation(7, true, ser, Codecs.EXIST_USER, ARGS,
                    new HashMap<>(plain)));
            byte[] fromEncoded = Codecs.encode(DubboRequest.invocation(7, true, ser, Codecs.EXIST_USER, ARGS, encoded));
            assertArrayEquals(fromMap, fromEncoded, "serialization " + ser);
            DubboRequest read = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), fromEncoded);
            assertEquals(plain, read.attachments());
            assertEquals("g1", read.group());
        }
    }

    @Test
    void encodedAttachmentsAreImmutable() {
        Map<String, Object> plain = Codecs.benchmarkAttachments("5000");
        EncodedAttachments encoded = EncodedAttachments.of(plain);
        plain.put("later", "x");
        assertFalse(encoded.containsKey("later"), "a copy, not a view of the caller's map");
        assertThrows(UnsupportedOperationException.class, () -> encoded.put("k", "v"));
        assertThrows(UnsupportedOperationException.class, () -> encoded.remove("path"));
        assertThrows(UnsupportedOperationException.class, () -> encoded.keySet().clear());
        assertThrows(UnsupportedOperationException.class, () -> encoded.entrySet().iterator().next().setValue("v"));
    }

    @Test
    void unserializableAttachmentsFailWhenEncodedNotOnEveryCall() {
        Map<String, Object> plain = Codecs.benchmarkAttachments("5000");
        plain.put("lock", new Object()); // not Serializable: refused by fastjson2's check
        assertThrows(DubboSerializationException.class, () -> EncodedAttachments.of(plain));
    }

    @Test
    void aDecoderReadingTheSameAttachmentsAgainReturnsTheSameInstanceWithoutDecoding() {
        DubboDecoder server = Codecs.serverDecoder();
        Map<String, Object> sent = Codecs.benchmarkAttachments("5000");
        DubboRequest first = decodeRequest(server, 1, sent);
        DubboRequest second = decodeRequest(server, 2, sent);
        assertEquals(sent, first.attachments());
        assertInstanceOf(EncodedAttachments.class, first.attachments());
        assertSame(first.attachments(), second.attachments(), "the same bytes: the map read before");
        assertThrows(UnsupportedOperationException.class, () -> second.attachments().put("k", "v"));

        // One byte different (same length): read anew, not the remembered map.
        Map<String, Object> other = Codecs.benchmarkAttachments("5001");
        DubboRequest third = decodeRequest(server, 3, other);
        assertNotSame(first.attachments(), third.attachments());
        assertEquals(other, third.attachments());
        assertEquals("5001", third.attachments().get("timeout"));

        // Another decoder (another connection) remembers nothing of this one.
        assertNotSame(first.attachments(), decodeRequest(Codecs.serverDecoder(), 4, sent).attachments());
    }

    @Test
    void attachmentsOfDifferentLengthsAlternatingAreEachRememberedAndReadRight() {
        DubboDecoder server = Codecs.serverDecoder();
        Map<String, Object> a = Codecs.benchmarkAttachments("5000");
        Map<String, Object> b = Codecs.benchmarkAttachments("50000"); // one byte longer: another slot
        Map<String, Object> c = Codecs.benchmarkAttachments("50001000"); // four bytes longer: a's slot
        Map<String, Object> firstA = decodeRequest(server, 1, a).attachments();
        Map<String, Object> firstB = decodeRequest(server, 2, b).attachments();
        assertSame(firstA, decodeRequest(server, 3, a).attachments());
        assertSame(firstB, decodeRequest(server, 4, b).attachments());
        Map<String, Object> firstC = decodeRequest(server, 5, c).attachments();
        assertEquals(c, firstC);
        Map<String, Object> againA = decodeRequest(server, 6, a).attachments(); // c took a's slot
        assertEquals(a, againA);
        assertNotSame(firstA, againA);
        assertEquals(b, decodeRequest(server, 7, b).attachments());
    }

    @Test
    void attachmentsThatAreNotAllAsciiStringsOrAreLongAreReadAsBeforeAndNotRemembered() {
        DubboDecoder server = Codecs.serverDecoder();
        Map<String, Object> unicode = Codecs.benchmarkAttachments("5000");
        unicode.put("name", "Zoë");
        Map<String, Object> firstUnicode = decodeRequest(server, 1, unicode).attachments();
        assertEquals(unicode, firstUnicode);
        assertFalse(firstUnicode instanceof EncodedAttachments);

        Map<String, Object> numbers = Codecs.benchmarkAttachments("5000");
        numbers.put("retries", 3);
        assertEquals(numbers, decodeRequest(server, 2, numbers).attachments());

        Map<String, Object> big = Codecs.benchmarkAttachments("5000");
        big.put("trace", "t".repeat(2000));
        Map<String, Object> firstBig = decodeRequest(server, 3, big).attachments();
        assertEquals(big, firstBig);
        assertNotSame(firstBig, decodeRequest(server, 4, big).attachments());
    }

    @Test
    void responseAttachmentsAreRememberedByTheClientDecoder() {
        DubboDecoder client = Codecs.clientDecoder(Boolean.class);
        Map<String, Object> first = decodeResponse(client, 1).attachments();
        assertEquals(DubboResponse.DEFAULT_ATTACHMENTS, first);
        assertSame(first, decodeResponse(client, 2).attachments());
    }

    @Test
    void aRememberedItemSavesTheRequestDecodeItsStrings() {
        DubboDecoder server = Codecs.serverDecoder();
        Map<String, Object> sent = Codecs.benchmarkAttachments("5000");
        byte[] frame = Codecs.encode(DubboRequest.invocation(1, true, DubboConstants.SERIALIZATION_FASTJSON2,
                Codecs.EXIST_USER, ARGS, EncodedAttachments.of(sent)));
        byte[] otherFrame = Codecs.encode(DubboRequest.invocation(1, true, DubboConstants.SERIALIZATION_FASTJSON2,
                Codecs.EXIST_USER, ARGS, EncodedAttachments.of(Codecs.benchmarkAttachments("5001"))));
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 5_000; i++) { // compiled before measuring
            Codecs.decodeHeap(server, (i & 1) == 0 ? frame : otherFrame);
        }
        Codecs.decodeHeap(server, frame);
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000; i++) {
            Codecs.decodeHeap(server, frame);
        }
        long same = (mx.getCurrentThreadAllocatedBytes() - before) / 1_000;
        before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000; i++) { // the same length, so each replaces the other: every one is read anew
            Codecs.decodeHeap(server, (i & 1) == 0 ? otherFrame : frame);
        }
        long alternating = (mx.getCurrentThreadAllocatedBytes() - before) / 1_000;
        // The four attachments are eight strings, a HashMap and its nodes: about 700 bytes per request.
        assertTrue(alternating - same > 400, "same attachments " + same + " B per request, read anew "
                + alternating + " B");
    }

    private static DubboRequest decodeRequest(DubboDecoder decoder, long id, Map<String, Object> attachments) {
        byte[] frame = Codecs.encode(DubboRequest.invocation(id, true, DubboConstants.SERIALIZATION_FASTJSON2,
                Codecs.EXIST_USER, ARGS, new HashMap<>(attachments)));
        DubboRequest r = (DubboRequest) Codecs.decodeOne(decoder, frame);
        assertTrue(r.method() != null && !r.isBroken(), () -> "decoded " + r);
        return r;
    }

    private static DubboResponse decodeResponse(DubboDecoder decoder, long id) {
        byte[] frame = Codecs.encode(DubboResponse.value(id, DubboConstants.SERIALIZATION_FASTJSON2, Boolean.TRUE,
                DubboResponse.DEFAULT_ATTACHMENTS));
        return (DubboResponse) Codecs.decodeOne(decoder, frame);
    }
}
