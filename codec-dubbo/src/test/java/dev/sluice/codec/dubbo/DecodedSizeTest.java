package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static dev.sluice.codec.dubbo.TestBytes.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md A34: both bounds walks count the values a frame decodes to and refuse a frame past the
 * per-frame budget before anything is built (an empty list is one wire byte and some 60 bytes of heap), and estimate
 * the decoded heap, which the decoded request carries.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DecodedSizeTest {
    private static final DubboMethod ECHO = DubboMethod.of(Codecs.USER_SERVICE, null, DubboConstants.ECHO_METHOD,
            DubboConstants.ECHO_DESC);
    private static final byte[] NO_ATTACHMENTS = hex("48 5a");

    /** A hessian2 list of {@code n} empty lists: one wire byte each. */
    static byte[] emptyLists(int n) {
        byte[] lists = new byte[n + 6];
        Arrays.fill(lists, (byte) 0x78);
        lists[0] = 'X'; // a list with a length, then the int
        lists[1] = 'I';
        java.nio.ByteBuffer.wrap(lists, 2, 4).putInt(n);
        return lists;
    }

    @Test
    void aFrameOfEmptyListsPastTheDefaultElementBudgetIsRefused() {
        DubboRequest r = NumberLimitsTest.refused(NumberLimitsTest.hessian2Request(1, ECHO, emptyLists(1_000_001),
                NO_ATTACHMENTS), "decodes to more than 1000000 values", "(maxDecodedElements)");
        assertEquals(1, r.id());
        // fastjson2: the same as a JSONB array of empty arrays (0x94), by hand.
        byte[] frame = Codecs.encode(DubboRequest.invocation(2, ECHO, new Object[] {"placeholder"}, null));
        byte[] item = new byte[1_000_001 + 6];
        item[0] = (byte) 0xa4;
        item[1] = 0x48; // int32 count
        java.nio.ByteBuffer.wrap(item, 2, 4).putInt(1_000_001);
        Arrays.fill(item, 6, item.length, (byte) 0x94);
        NumberLimitsTest.refused(replaceFastjson2Item(frame, 5, item), "more than 1000000 values",
                "(maxDecodedElements)");
    }

    /** {@code frame} with its fastjson2 body item {@code index} replaced by {@code jsonb}. */
    static byte[] replaceFastjson2Item(byte[] frame, int index, byte[] jsonb) {
        java.nio.ByteBuffer f = java.nio.ByteBuffer.wrap(frame);
        int pos = 16;
        for (int i = 0; i < index; i++) {
            pos += 4 + f.getInt(pos);
        }
        int old = f.getInt(pos);
        byte[] body = concat(Arrays.copyOfRange(frame, 16, pos), java.nio.ByteBuffer.allocate(4).putInt(jsonb.length)
                .array(), jsonb, Arrays.copyOfRange(frame, pos + 4 + old, frame.length));
        byte[] header = Arrays.copyOf(frame, 16);
        java.nio.ByteBuffer.wrap(header).putInt(12, body.length);
        return concat(header, body);
    }

    @Test
    void theBudgetIsASettingAndCountsEveryValue() {
        ClassAllowlist allowlist = Codecs.userServiceAllowlist();
        DubboDecoder tight = new DubboDecoder(8 << 20, allowlist, new InterfaceTypeResolver(allowlist)
                .register(org.apache.dubbo.benchmark.service.UserService.class, null), false,
                DecodeLimits.DEFAULTS.withMaxDecodedElements(1_000));
        // The five leading strings, the outer list and its elements, the attachment map: 7 values beside the lists.
        DubboRequest under = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(tight,
                NumberLimitsTest.hessian2Request(3, ECHO, emptyLists(993), NO_ATTACHMENTS)));
        assertFalse(under.isBroken(), under::errorMessage);
        DubboRequest over = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(tight,
                NumberLimitsTest.hessian2Request(4, ECHO, emptyLists(994), NO_ATTACHMENTS)));
        assertTrue(over.isBroken() && over.errorMessage().contains("over the limit of 1000 (maxDecodedElements)"),
                over::toString);
        java.util.List<Object> empties = new java.util.ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            empties.add(new java.util.ArrayList<>());
        }
        DubboRequest fastjson2 = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(tight,
                Codecs.encode(DubboRequest.invocation(5, ECHO, new Object[] {empties}, null))));
        assertTrue(fastjson2.isBroken() && fastjson2.errorMessage().contains("(maxDecodedElements)"),
                fastjson2::toString);
        // A result parsed by the waiting caller (a client's deferred value) has the same budget.
        DubboDecoder client = new DubboDecoder(8 << 20, allowlist, DubboTypeResolver.NONE, true,
                DecodeLimits.DEFAULTS.withMaxDecodedElements(1_000));
        DubboResponse deferred = assertInstanceOf(DubboResponse.class, Codecs.decodeOne(client, Codecs.encode(
                DubboResponse.value(8, DubboConstants.SERIALIZATION_FASTJSON2, empties, null))));
        RuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                () -> deferred.readValue(Object.class));
        assertTrue(String.valueOf(e.getMessage()).contains("(maxDecodedElements)"), e::toString);
    }

    @Test
    void theDecodedRequestCarriesItsHeapEstimateAboveItsWireSize() {
        int lists = 10_000;
        DubboRequest r = NumberLimitsTest.decode(NumberLimitsTest.hessian2Request(6, ECHO, emptyLists(lists),
                NO_ATTACHMENTS));
        assertFalse(r.isBroken(), r::errorMessage);
        assertEquals(lists, ((java.util.List<?>) r.arguments()[0]).size());
        long perList = DecodeBudget.VALUE_BYTES + DecodeBudget.CONTAINER_BYTES;
        assertTrue(r.decodedEstimate() >= lists * perList, "estimate " + r.decodedEstimate());
        assertTrue(r.decodedEstimate() > 50L * r.frameBytes(), r.decodedEstimate() + " vs " + r.frameBytes());
        // Strings: about their chars, so a string-heavy request is charged about its wire size.
        String text = "s".repeat(100_000);
        DubboRequest strings = NumberLimitsTest.decode(NumberLimitsTest.hessian2Request(7, ECHO,
                NumberLimitsTest.hessian2(text), NO_ATTACHMENTS));
        assertTrue(strings.decodedEstimate() >= text.length() && strings.decodedEstimate() < 2L * text.length(),
                "estimate " + strings.decodedEstimate());
    }
}
