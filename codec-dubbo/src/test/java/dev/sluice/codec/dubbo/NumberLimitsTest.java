package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static dev.sluice.codec.dubbo.TestBytes.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.math.BigDecimal;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.service.UserService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md A31: number text is judged by the bounds walkers before hessian-lite or fastjson2 parse it (a
 * digit cap and an exponent cap), and numbers sent for integral parameters must be integers in range. Real frames
 * through the decoder; every refusal is a status-40 broken request whose message comes from the walk (it names the
 * offset or the limit setting), so {@code new BigDecimal(String)} is never reached.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NumberLimitsTest {
    private static final String PATH = UserService.class.getName();
    private static final DubboMethod ECHO = DubboMethod.of(PATH, null, DubboConstants.ECHO_METHOD,
            DubboConstants.ECHO_DESC);
    private static final DubboMethod GET_USER = Codecs.GET_USER; // getUser(long)
    private static final DubboMethod LIST_USER = Codecs.LIST_USER; // listUser(int)
    private static final byte[] NO_ATTACHMENTS = hex("48 5a");

    static byte[] hessian2(Object... values) {
        ByteBuf b = Unpooled.buffer();
        try {
            Hessian2Values.write(b, values);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** A {@code BigDecimal} as hessian-lite writes one: a class definition with a {@code value} field, an object. */
    static byte[] bigDecimalObject(String text) {
        return concat(hex("43"), hessian2("java.math.BigDecimal"), hex("91"), hessian2("value"), hex("60"),
                hessian2(text));
    }

    /** The same as a typed map, which hessian-lite reads through the same deserializer. */
    static byte[] bigDecimalMap(String text) {
        return concat(hex("4d"), hessian2("java.math.BigDecimal"), hessian2("value"), hessian2(text), hex("5a"));
    }

    static byte[] hessian2Request(long id, DubboMethod method, byte[]... values) {
        byte[] body = concat(method.hessian2Prefix(), concat(values));
        return concat(FramingTest.header(0xc2, 0, id, body.length), body);
    }

    static DubboRequest decode(byte[] frame) {
        return assertInstanceOf(DubboRequest.class, Codecs.decodeOne(Codecs.serverDecoder(), frame));
    }

    static DubboRequest refused(byte[] frame, String... inMessage) {
        DubboRequest r = decode(frame);
        assertTrue(r.isBroken(), () -> "accepted: " + r.toString().substring(0, Math.min(300, r.toString().length())));
        assertEquals(DubboConstants.STATUS_BAD_REQUEST, r.brokenStatus());
        for (String s : inMessage) {
            assertTrue(r.errorMessage().contains(s), r.errorMessage());
        }
        return r;
    }

    static Object accepted(byte[] frame) {
        DubboRequest r = decode(frame);
        assertFalse(r.isBroken(), r::errorMessage);
        return r.arguments()[0];
    }

    @Test
    void hessian2BigDecimalOf200000DigitsForEchoIsRefusedByTheWalkBeforeHessianLiteParsesIt() {
        String digits = "7".repeat(200_000);
        // "at offset": the message of the walk; hessian-lite's reader never ran, so BigDecimal(String) never did.
        refused(hessian2Request(1, ECHO, bigDecimalObject(digits), NO_ATTACHMENTS),
                "200000 digits at offset", "limit of 1000 digits (maxNumberDigits)");
        refused(hessian2Request(2, ECHO, bigDecimalMap(digits), NO_ATTACHMENTS),
                "200000 digits at offset", "limit of 1000 digits");
        // Full-width digits are digits to BigDecimal too.
        refused(hessian2Request(3, ECHO, bigDecimalObject("１".repeat(5_000)), NO_ATTACHMENTS), "5000 digits");
    }

    @Test
    void hessian2BigDecimalAtTheDigitLimitIsStillRead() {
        String digits = "1" + "0".repeat(998) + ".5";
        assertEquals(new BigDecimal(digits), accepted(hessian2Request(4, ECHO, bigDecimalObject(digits),
                NO_ATTACHMENTS)));
        assertEquals(new BigDecimal(digits), accepted(hessian2Request(5, ECHO, bigDecimalMap(digits),
                NO_ATTACHMENTS)));
        // A second object of the same definition ('O'-less compact form 0x60) is checked too.
        byte[] two = concat(hex("55"), hessian2("[object"), bigDecimalObject("1.5"), hex("60"),
                hessian2("9".repeat(1_001)), hex("5a"));
        refused(hessian2Request(6, ECHO, two, NO_ATTACHMENTS), "1001 digits");
    }

    @Test
    void hessian2BigDecimalExponentBeyondTheCapIsRefused() {
        refused(hessian2Request(7, ECHO, bigDecimalObject("1e10000"), NO_ATTACHMENTS), "exponent 10000",
                "more than 9999");
        refused(hessian2Request(8, ECHO, bigDecimalMap("1E-999999999"), NO_ATTACHMENTS), "exponent 999999999");
        assertEquals(new BigDecimal("1e9999"), accepted(hessian2Request(9, ECHO, bigDecimalObject("1e9999"),
                NO_ATTACHMENTS)));
    }

    @Test
    void fastjson2NumberTextOver1000DigitsIsRefusedWhereverItIs() {
        String digits = "9".repeat(300_000);
        refused(Codecs.encode(DubboRequest.invocation(10, GET_USER, new Object[] {digits}, null)),
                "300000 digits", "limit of 1000 digits (maxNumberDigits)");
        refused(Codecs.encode(DubboRequest.invocation(11, ECHO, new Object[] {new Object[] {"x", digits}}, null)),
                "300000 digits");
        // A big integer: fastjson2 turns it into text where a string is expected.
        refused(Codecs.encode(DubboRequest.invocation(12, ECHO,
                new Object[] {new java.math.BigInteger(digits.substring(0, 5_000))}, null)), "big integer",
                "limit of 1000 digits");
        // At the limit, text is text; one digit more is refused even where it would stay a string (the walk does
        // not know the type a value is read as), except for a String parameter, read without fastjson2.
        String thousand = "1".repeat(1_000);
        assertEquals(thousand, accepted(Codecs.encode(DubboRequest.invocation(13, ECHO, new Object[] {thousand},
                null))));
        refused(Codecs.encode(DubboRequest.invocation(14, ECHO, new Object[] {thousand + "1"}, null)), "1001 digits");
        assertEquals(digits, accepted(Codecs.encode(DubboRequest.invocation(15, Codecs.EXIST_USER,
                new Object[] {digits}, null))));
    }

    @Test
    void fastjson2LongParameterTakesOnlyAnIntegerInRange() {
        for (String text : new String[] {"1.5", "99999999999999999999", "12"}) {
            refused(Codecs.encode(DubboRequest.invocation(20, GET_USER, new Object[] {text}, null)),
                    "expected long but the value is text");
        }
        refused(Codecs.encode(DubboRequest.invocation(21, GET_USER, new Object[] {1.5d}, null)), "expected long");
        refused(Codecs.encode(DubboRequest.invocation(22, GET_USER, new Object[] {new BigDecimal("1.5")}, null)),
                "expected long");
        refused(Codecs.encode(DubboRequest.invocation(23, LIST_USER, new Object[] {1L << 40}, null)),
                "expected int but the value 1099511627776 is out of its range");
        assertEquals(42L, accepted(Codecs.encode(DubboRequest.invocation(24, GET_USER, new Object[] {42L}, null))));
        assertEquals(-7, accepted(Codecs.encode(DubboRequest.invocation(25, LIST_USER, new Object[] {-7}, null))));
    }

    /** {@code frame} (a fastjson2 request) with its first argument item replaced by {@code jsonb}. */
    static byte[] withArgument(byte[] frame, byte[] jsonb) {
        java.nio.ByteBuffer f = java.nio.ByteBuffer.wrap(frame);
        int pos = 16;
        for (int i = 0; i < 5; i++) {
            pos += 4 + f.getInt(pos);
        }
        int old = f.getInt(pos);
        byte[] out = concat(java.util.Arrays.copyOfRange(frame, 0, pos),
                java.nio.ByteBuffer.allocate(4).putInt(jsonb.length).array(), jsonb,
                java.util.Arrays.copyOfRange(frame, pos + 4 + old, frame.length));
        java.nio.ByteBuffer.wrap(out).putInt(12, out.length - 16);
        return out;
    }

    static byte[] jsonb(Object v) {
        return com.alibaba.fastjson2.JSONB.toBytes(v);
    }

    /**
     * fastjson2's bean reader is lenient about layout: the first name may be {@code "@type"}, names may be plain
     * strings or symbols defined anywhere earlier in the item. However a {@code User} is laid out, its integral fields
     * (and the {@code Integer} elements of its list) are checked by the walk (A31b).
     */
    @Test
    void fastjson2IntegralFieldsAreCheckedHoweverTheBeanIsLaidOut() {
        String user = "org.apache.dubbo.benchmark.bean.User";
        byte[] typed = concat(hex("92"), jsonb(user), hex("00"));
        byte[] createUser = Codecs.encode(DubboRequest.invocation(50, Codecs.CREATE_USER, new Object[] {null}, null));
        // The name "sex" defined as symbol 2 inside a field the bean does not have, then used by reference.
        refused(withArgument(createUser, concat(typed, hex("a6 7f"), jsonb("zzz"), hex("01 a6 7f"), jsonb("sex"),
                hex("02 01 a5 7f 02"), jsonb(1L << 40), hex("a5"))),
                "field " + user + ".sex: expected int but the value 1099511627776 is out of its range");
        // An element of List<Integer> permissions.
        refused(withArgument(createUser, concat(typed, hex("a6 7f"), jsonb("permissions"), hex("01 96 01"),
                jsonb(2.5d), hex("a5"))), "field " + user + ".permissions: expected java.lang.Integer");
        // "@type" as the first name, plain string names.
        refused(withArgument(createUser, concat(hex("a6"), jsonb("@type"), jsonb(user), jsonb("status"),
                jsonb(3.7d), hex("a5"))), "field " + user + ".status: expected int but the value is a double");
        // The same fields with integers in range are read.
        Object ok = accepted(withArgument(createUser, concat(typed, hex("a6 7f"), jsonb("id"), hex("01"),
                jsonb(Long.MIN_VALUE), hex("7f"), jsonb("permissions"), hex("02 96 01"), jsonb(-5), hex("a5"))));
        assertEquals(Long.MIN_VALUE, ((org.apache.dubbo.benchmark.bean.User) ok).getId());
        assertEquals(java.util.List.of(1, -5), ((org.apache.dubbo.benchmark.bean.User) ok).getPermissions());
    }

    @Test
    void hessian2LongParameterTakesOnlyAnIntegerInRange() {
        refused(hessian2Request(30, GET_USER, hessian2("9".repeat(300_000)), NO_ATTACHMENTS),
                "expected long", "not an integer");
        refused(hessian2Request(31, GET_USER, hessian2(1.5d), NO_ATTACHMENTS), "expected long", "not an integer");
        refused(hessian2Request(32, LIST_USER, hessian2(1L << 40), NO_ATTACHMENTS),
                "expected int but the value 1099511627776", "out of its range");
        assertEquals(1L << 40, accepted(hessian2Request(33, GET_USER, hessian2(1L << 40), NO_ATTACHMENTS)));
        assertEquals(-3, accepted(hessian2Request(34, LIST_USER, hessian2(-3L), NO_ATTACHMENTS)));
        assertEquals(Integer.MIN_VALUE, accepted(hessian2Request(35, LIST_USER, hessian2(Integer.MIN_VALUE),
                NO_ATTACHMENTS)));
    }

    @Test
    void theDigitLimitIsASettingOfTheDecoder() {
        ClassAllowlist allowlist = Codecs.userServiceAllowlist();
        DubboDecoder tight = new DubboDecoder(8 << 20, allowlist, new InterfaceTypeResolver(allowlist)
                .register(UserService.class, null), false, DecodeLimits.DEFAULTS.withMaxNumberDigits(10));
        DubboRequest over = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(tight,
                hessian2Request(40, ECHO, bigDecimalObject("12345678901"), NO_ATTACHMENTS)));
        assertTrue(over.isBroken() && over.errorMessage().contains("11 digits at offset")
                && over.errorMessage().contains("limit of 10 digits"), over::toString);
        DubboRequest at = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(tight,
                hessian2Request(41, ECHO, bigDecimalObject("1234567890"), NO_ATTACHMENTS)));
        assertEquals(new BigDecimal("1234567890"), at.arguments()[0]);
        DubboRequest text = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(tight,
                Codecs.encode(DubboRequest.invocation(42, ECHO, new Object[] {"12345678901"}, null))));
        assertTrue(text.isBroken() && text.errorMessage().contains("11 digits"), text::toString);
    }

    /** {@code n} class definitions in a row, then a null: each definition is followed by "the value that uses it". */
    static byte[] classDefinitionChain(int n) {
        byte[] chain = new byte[n * 4 + 1];
        for (int i = 0; i < n; i++) {
            chain[i * 4] = 'C';
            chain[i * 4 + 1] = 0x01; // a one-char name
            chain[i * 4 + 2] = 'a';
            chain[i * 4 + 3] = (byte) 0x90; // no fields
        }
        chain[n * 4] = 'N';
        return chain;
    }

    @Test
    void aChainOfClassDefinitionsIsRefusedAsTooDeepNotAStackOverflow() {
        for (int n : new int[] {5_000, 100_000}) {
            DubboRequest r = refused(hessian2Request(50, ECHO, classDefinitionChain(n), NO_ATTACHMENTS),
                    "nested deeper than " + Hessian2Bounds.MAX_DEPTH, "class definitions");
            assertEquals(50, r.id());
        }
        // The same chain as a response value fails the call, it does not escape the decoder.
        byte[] body = concat(hex("91"), classDefinitionChain(100_000));
        DubboResponse response = assertInstanceOf(DubboResponse.class, Codecs.decodeOne(Codecs.clientDecoder(
                Object.class), concat(FramingTest.header(0x02, 20, 51, body.length), body)));
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, response.status());
        assertTrue(response.errorMessage().contains("nested deeper than"), response.errorMessage());
    }
}
