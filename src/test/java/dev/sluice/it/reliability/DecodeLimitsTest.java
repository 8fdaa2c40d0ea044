package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSONB;
import dev.sluice.codec.dubbo.TestBytes;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.rpc.SluiceServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md A31 through a real {@link SluiceServer}: hostile number text gets status 40 naming the limit
 * and the size, from the bounds walk on the event loop, and the connection goes on serving; the limit is a builder
 * option.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DecodeLimitsTest {

    /** What the server exports. */
    public interface NumberService {
        long twice(long v);

        Object echo(Object v);

        String hold(String v);

        String counts(Counts c);

        String countsList(java.util.List<Counts> list);

        Counts copy(Counts c);
    }

    /** A parameter object with every integral field kind, primitive and boxed. */
    public static class Counts implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        int i;
        long l;
        short s;
        byte b;
        Integer bi;
        Long bl;
        Short bs;
        Byte bb;

        @Override
        public String toString() {
            return "i=" + i + " l=" + l + " s=" + s + " b=" + b + " bi=" + bi + " bl=" + bl + " bs=" + bs + " bb=" + bb;
        }
    }

    static final class Numbers implements NumberService {
        final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

        @Override
        public String hold(String v) {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return v;
        }

        @Override
        public String counts(Counts c) {
            return c.toString();
        }

        @Override
        public String countsList(java.util.List<Counts> list) {
            return list.toString();
        }

        @Override
        public Counts copy(Counts c) {
            return c;
        }

        @Override
        public long twice(long v) {
            return 2 * v;
        }

        @Override
        public Object echo(Object v) {
            return v;
        }
    }

    /** Dubbo's {@code $echo(Object)}, which every exported service answers, in hessian2 with {@code value}. */
    static byte[] hessian2Echo(long id, byte[] value) {
        byte[] body = TestBytes.concat(Wire.hessian2("2.0.2", NumberService.class.getName(), "0.0.0",
                DubboConstants.ECHO_METHOD, DubboConstants.ECHO_DESC), value, new byte[] {'H', 'Z'});
        return TestBytes.concat(Wire.header(0xc2, 0, id, body.length), body);
    }

    /** A {@code BigDecimal} as hessian-lite writes one: a class definition, then the object with its digit string. */
    static byte[] hessian2BigDecimal(String text) {
        return TestBytes.concat(new byte[] {'C'}, Wire.hessian2("java.math.BigDecimal"), new byte[] {(byte) 0x91},
                Wire.hessian2("value"), new byte[] {0x60}, Wire.hessian2(text));
    }

    @Test
    void digitBombsAreAnsweredWith40NamingTheLimitAndTheConnectionGoesOn() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).register(NumberService.class, new Numbers())
                .start(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            out.write(hessian2Echo(1, hessian2BigDecimal("7".repeat(200_000))));
            Wire.Frame echo = Wire.read(in);
            assertEquals(1, echo.id());
            assertEquals(40, echo.status(), echo.text());
            assertTrue(echo.text().contains("200000 digits") && echo.text().contains("limit of 1000 digits"),
                    echo.text());

            out.write(Wire.request(2, NumberService.class, "twice", "9".repeat(300_000)));
            Wire.Frame twice = Wire.read(in);
            assertEquals(2, twice.id());
            assertEquals(40, twice.status(), twice.text());
            assertTrue(twice.text().contains("300000 digits") && twice.text().contains("maxNumberDigits"),
                    twice.text());

            out.write(Wire.request(3, NumberService.class, "twice", "1.5"));
            Wire.Frame fraction = Wire.read(in);
            assertEquals(40, fraction.status(), fraction.text());
            assertTrue(fraction.text().contains("expected long"), fraction.text());

            out.write(Wire.request(4, NumberService.class, "twice", 21L));
            Wire.Frame ok = Wire.read(in);
            assertEquals(20, ok.status());
            assertEquals(42, ((Number) ok.item(1)).intValue());
        }
    }

    /** A {@link Counts} in hessian2 whose field {@code field} is {@code value} (hessian2 bytes), written by hand. */
    static byte[] hessian2Counts(String field, byte[] value) {
        return TestBytes.concat(new byte[] {'C'}, Wire.hessian2(Counts.class.getName()), new byte[] {(byte) 0x91},
                Wire.hessian2(field), new byte[] {0x60}, value);
    }

    @Test
    void integralFieldsOfAParameterObjectTakeOnlyIntegersInRangeInHessian2() throws Exception {
        String beyondLong = "9223372036854775808"; // 2^63
        Object[][] bad = {
            {"i", Wire.hessian2(12.5d), "int"},
            {"i", Wire.hessian2(1e300d), "int"},
            {"i", Wire.hessian2("1E+300"), "int"},
            {"i", Wire.hessian2("9".repeat(900)), "int"},
            {"i", Wire.hessian2(1L << 40), "int"},
            {"l", Wire.hessian2(9.223372036854775808e18d), "long"},
            {"l", Wire.hessian2(beyondLong), "long"},
            {"l", hessian2BigDecimal(beyondLong), "long"},
            {"s", Wire.hessian2(70_000), "short"},
            {"b", Wire.hessian2(300), "byte"},
            {"bi", Wire.hessian2(12.5d), "java.lang.Integer"},
            {"bl", Wire.hessian2("12"), "java.lang.Long"},
            {"bs", Wire.hessian2(-40_000), "java.lang.Short"},
            {"bb", Wire.hessian2(128L), "java.lang.Byte"},
        };
        try (SluiceServer server = SluiceServer.builder().port(0).register(NumberService.class, new Numbers())
                .start(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            long id = 0;
            java.util.List<String> wrong = new java.util.ArrayList<>();
            for (Object[] c : bad) {
                out.write(Wire.hessian2Request(++id, NumberService.class, "counts",
                        hessian2Counts((String) c[0], (byte[]) c[1])));
                Wire.Frame answer = Wire.read(in);
                assertEquals(id, answer.id());
                String text = answer.text();
                if (answer.status() != 40 || !text.contains("field " + Counts.class.getName() + "." + c[0])
                        || !text.contains("expected " + c[2])) {
                    wrong.add("request " + id + " (" + c[0] + "): status " + answer.status() + " "
                            + text.substring(0, Math.min(160, text.length())));
                }
            }
            assertEquals(java.util.List.of(), wrong, "every bad field gets status 40 naming the field and its type");
            out.write(Wire.hessian2Request(++id, NumberService.class, "counts", TestBytes.concat(new byte[] {'C'},
                    Wire.hessian2(Counts.class.getName()), new byte[] {(byte) 0x94}, Wire.hessian2("i"),
                    Wire.hessian2("l"), Wire.hessian2("s"), Wire.hessian2("bl"), new byte[] {0x60},
                    Wire.hessian2(Integer.MIN_VALUE), Wire.hessian2(Long.MAX_VALUE),
                    Wire.hessian2((int) Short.MAX_VALUE), new byte[] {'N'})));
            Wire.Frame ok = Wire.read(in);
            assertEquals(id, ok.id());
            assertEquals(20, ok.status(), ok.text());
            assertTrue(ok.text().contains("i=" + Integer.MIN_VALUE + " l=" + Long.MAX_VALUE + " s=32767 b=0 bi=null"
                    + " bl=null"), ok.text());
        }
    }

    /** The start of a typed JSONB {@link Counts}: the type tag, its name defining symbol 0, the object start. */
    static byte[] jsonbCountsStart() {
        return TestBytes.concat(new byte[] {(byte) 0x92}, JSONB.toBytes(Counts.class.getName()),
                new byte[] {0, (byte) 0xa6});
    }

    /**
     * A {@link Counts} in JSONB whose one field {@code field} is the JSONB value {@code value}, written by hand as
     * Dubbo's writer lays a bean out (typed, the field name a symbol), so any bytes can stand where it puts a number.
     */
    static byte[] jsonbCounts(String field, byte[] value) {
        return TestBytes.concat(jsonbCountsStart(), new byte[] {0x7f}, JSONB.toBytes(field), new byte[] {1}, value,
                new byte[] {(byte) 0xa5});
    }

    /** The numbers a peer can send for integral fields, each with the field and the type named in the answer. */
    static Object[][] badFastjson2Fields() {
        String beyondLong = "9223372036854775808"; // 2^63
        return new Object[][] {
            {"i", JSONB.toBytes(3.7d), "int"},
            {"i", JSONB.toBytes(1e30d), "int"},
            {"i", JSONB.toBytes("1E+30"), "int"},
            {"i", JSONB.toBytes("9".repeat(900)), "int"},
            {"i", JSONB.toBytes(1L << 40), "int"},
            {"l", JSONB.toBytes(new java.math.BigInteger(beyondLong)), "long"},
            {"l", JSONB.toBytes(9.223372036854775808e18d), "long"},
            {"l", JSONB.toBytes(new BigDecimal("3.7")), "long"},
            {"l", JSONB.toBytes(beyondLong), "long"},
            {"s", JSONB.toBytes(70_000), "short"},
            {"b", JSONB.toBytes(300), "byte"},
            {"bi", JSONB.toBytes(3.7d), "java.lang.Integer"},
            {"bl", JSONB.toBytes("12"), "java.lang.Long"},
            {"bs", JSONB.toBytes(-40_000), "java.lang.Short"},
            {"bb", JSONB.toBytes(128L), "java.lang.Byte"},
        };
    }

    @Test
    void integralFieldsOfAParameterObjectTakeOnlyIntegersInRangeInFastjson2() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).register(NumberService.class, new Numbers())
                .start(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            long id = 0;
            java.util.List<String> wrong = new java.util.ArrayList<>();
            java.util.List<Object[]> cases = new java.util.ArrayList<>(java.util.Arrays.asList(badFastjson2Fields()));
            // In a list, the second bean naming its field by a symbol the first one defined.
            cases.add(new Object[] {"i", null, "int"});
            for (Object[] c : cases) {
                byte[] frame;
                if (c[1] == null) {
                    byte[] list = TestBytes.concat(new byte[] {(byte) 0x96}, jsonbCounts("i", JSONB.toBytes(5)),
                            new byte[] {(byte) 0x92, 0, (byte) 0xa6, 0x7f, 1}, JSONB.toBytes(1e30d),
                            new byte[] {(byte) 0xa5});
                    frame = Wire.replaceItem(Wire.request(++id, NumberService.class, "countsList",
                            java.util.List.of()), 5, list);
                } else {
                    frame = Wire.replaceItem(Wire.request(++id, NumberService.class, "counts", new Counts()), 5,
                            jsonbCounts((String) c[0], (byte[]) c[1]));
                }
                out.write(frame);
                Wire.Frame answer = Wire.read(in);
                assertEquals(id, answer.id());
                String text = answer.status() == 20 ? "answered " + answer.item(1) : answer.text();
                if (answer.status() != 40 || !text.contains("field " + Counts.class.getName() + "." + c[0])
                        || !text.contains("expected " + c[2])) {
                    wrong.add("request " + id + " (" + c[0] + "): status " + answer.status() + " "
                            + text.substring(0, Math.min(160, text.length())));
                }
            }
            assertEquals(java.util.List.of(), wrong, "every bad field gets status 40 naming the field and its type");
            Counts good = new Counts();
            good.i = Integer.MIN_VALUE;
            good.l = Long.MAX_VALUE;
            good.s = Short.MAX_VALUE;
            good.bb = Byte.MIN_VALUE;
            out.write(Wire.request(++id, NumberService.class, "counts", good));
            Wire.Frame ok = Wire.read(in);
            assertEquals(id, ok.id());
            assertEquals(20, ok.status());
            assertEquals("i=" + Integer.MIN_VALUE + " l=" + Long.MAX_VALUE + " s=32767 b=0 bi=null bl=null bs=null"
                    + " bb=-128", ok.item(1));
        }
    }

    @Test
    void integralFieldsOfAResultObjectTakeOnlyIntegersInRangeInFastjson2() throws Exception {
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        Object[][] bad = badFastjson2Fields();
        try (ScriptedServer provider = ScriptedServer.start((c, request) -> c.send(Wire.valueResponse(request.id(),
                jsonbCounts((String) bad[next.get()][0], (byte[]) bad[next.get()][1]))));
             dev.sluice.rpc.SluiceClient client = dev.sluice.rpc.SluiceClient.builder()
                     .address("127.0.0.1", provider.port()).timeout(java.time.Duration.ofSeconds(10)).build()) {
            NumberService numbers = client.reference(NumberService.class).proxy();
            java.util.List<String> wrong = new java.util.ArrayList<>();
            for (int i = 0; i < bad.length; i++) {
                next.set(i);
                String text;
                try {
                    text = "answered " + numbers.copy(new Counts());
                } catch (RuntimeException e) {
                    StringBuilder messages = new StringBuilder();
                    for (Throwable t = e; t != null; t = t.getCause()) {
                        messages.append(t.getMessage()).append(" / ");
                    }
                    text = messages.toString();
                }
                if (!text.contains("field " + Counts.class.getName() + "." + bad[i][0])
                        || !text.contains("expected " + bad[i][2])) {
                    wrong.add(bad[i][0] + ": " + text.substring(0, Math.min(160, text.length())));
                }
            }
            assertEquals(java.util.List.of(), wrong, "every bad field fails the call naming the field and its type");
        }
    }

    @Test
    void theDigitLimitIsABuilderOption() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).maxNumberDigits(50)
                .register(NumberService.class, new Numbers()).start(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            out.write(hessian2Echo(1, hessian2BigDecimal("1".repeat(51))));
            Wire.Frame over = Wire.read(in);
            assertEquals(40, over.status(), over.text());
            assertTrue(over.text().contains("51 digits") && over.text().contains("limit of 50 digits"), over.text());
            out.write(hessian2Echo(2, hessian2BigDecimal("1".repeat(50))));
            Wire.Frame at = Wire.read(in);
            assertEquals(20, at.status(), at.text());
            assertTrue(new String(at.body(), java.nio.charset.StandardCharsets.ISO_8859_1)
                    .contains(new BigDecimal("1".repeat(50)).toString()), "the value comes back");
        }
    }

    @Test
    void aChainOfThousandsOfClassDefinitionsIsABadRequestAndTheConnectionGoesOn() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).register(NumberService.class, new Numbers())
                .start(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            for (int n : new int[] {3_000, 100_000}) {
                byte[] chain = new byte[n * 4 + 1];
                for (int i = 0; i < n; i++) {
                    chain[i * 4] = 'C';
                    chain[i * 4 + 1] = 0x01;
                    chain[i * 4 + 2] = 'a';
                    chain[i * 4 + 3] = (byte) 0x90;
                }
                chain[n * 4] = 'N';
                out.write(hessian2Echo(n, chain));
                Wire.Frame answer = Wire.read(in);
                assertEquals(n, answer.id());
                assertEquals(40, answer.status(), answer.text());
                assertTrue(answer.text().contains("nested deeper than 128 levels"), answer.text());
            }
            out.write(Wire.request(7, NumberService.class, "twice", 4L));
            Wire.Frame ok = Wire.read(in);
            assertEquals(7, ok.id());
            assertEquals(20, ok.status());
        }
    }

    @Test
    void aRequestIsChargedItsDecodedEstimateNotItsWireSize() throws Exception {
        Numbers numbers = new Numbers();
        int lists = 20_000; // 20,000 wire bytes; well over a megabyte decoded
        int budget = 256 * 1024;
        try (SluiceServer server = SluiceServer.builder().port(0).threads(1, 1_000).queuedRequestBytes(budget)
                .register(NumberService.class, numbers).start(); Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            InputStream in = raw.getInputStream();
            out.write(Wire.request(1, NumberService.class, "hold", "first"));
            assertTrue(numbers.held.await(10, TimeUnit.SECONDS), "the pool's only thread is busy");
            out.write(Wire.request(2, NumberService.class, "echo", "small")); // waits: the budget is not empty
            byte[] empties = new byte[lists + 6];
            java.util.Arrays.fill(empties, (byte) 0x78);
            empties[0] = 'X'; // a list with a length, then the int
            empties[1] = 'I';
            java.nio.ByteBuffer.wrap(empties, 2, 4).putInt(lists);
            byte[] heavy = Wire.hessian2Request(3, NumberService.class, "echo", empties);
            assertTrue(heavy.length < budget, "the wire size alone fits the budget");
            out.write(heavy);
            Wire.Frame refused = Wire.read(in);
            assertEquals(3, refused.id());
            assertEquals(100, refused.status(), refused.text());
            assertTrue(refused.text().contains("budget of " + budget), refused.text());
            numbers.release.countDown();
            java.util.Set<Long> served = new java.util.HashSet<>();
            for (int i = 0; i < 2; i++) {
                Wire.Frame f = Wire.read(in);
                assertEquals(20, f.status());
                served.add(f.id());
            }
            assertEquals(java.util.Set.of(1L, 2L), served);
        }
    }
}
