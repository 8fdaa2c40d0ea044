package dev.sluice.dubbo;

import static dev.sluice.dubbo.TransporterFramingTest.header;
import static dev.sluice.dubbo.TransporterFramingTest.heartbeat;
import static dev.sluice.dubbo.TransporterFramingTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.fastjson2.JSONB;
import dev.sluice.dubbo.TransporterFramingTest.Frame;
import dev.sluice.testing.LogLines;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.protocol.dubbo.DubboProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile request bodies against a real Dubbo 3.3.6 provider exported with {@code server=sluice}, as raw bytes on a
 * real socket (docs/reliability.md H36): number text of hundreds of thousands of digits (hessian2 and fastjson2), a
 * run of thousands of hessian2 class definitions, one frame of a million empty lists, lists nested twenty thousand
 * deep. Inside Dubbo, Dubbo's own codec decodes the bodies, in Dubbo 3.3's default configuration on the transport's
 * event loop; the adapter walks each body with the codec's bounds walkers first. What each attack costs is measured
 * where the claim is: the CPU time and the allocation of the provider's event-loop thread (the provider has one),
 * and the lines the provider logs; each refused request must be answered with status 40 naming the limit and its URL
 * key, and the same connection and another must go on being served.
 */
@Timeout(120)
class TransporterHostileBodyTest {
    private static final int READ_TIMEOUT_MILLIS = 60_000;
    private static final String PATH = Bodies.class.getName();
    /** Digits of the number-text attacks: its quadratic parse cost seconds of loop CPU unchecked. */
    private static final int DIGITS = 400_000;
    /** Loop CPU any request may cost: a constant for a short exchange (code warming up) plus this per byte sent. */
    private static final long LOOP_CPU_BASE_NANOS = 100_000_000L;
    private static final long LOOP_CPU_NANOS_PER_BYTE = 400;
    /** Bytes the loop may allocate for one frame: a constant plus a few copies of the body. */
    private static final long LOOP_ALLOC_BASE = 16L << 20;
    private static final long LOOP_ALLOC_PER_BYTE = 8;
    /** Log lines one refused request may cost (a rate-limited warning); unchecked, a stack trace each. */
    private static final int LOG_LINES = 5;

    /** The service the provider exports. */
    public interface Bodies {
        /** {@code value * 2}. */
        long twice(long value);

        /** How many values came: a call whose decode is the work and whose answer is small. */
        int size(List<Object> values);

        /** The values back: a call whose answer is a value of any type. */
        List<Object> same(List<Object> values);
    }

    /** The provider's implementation. */
    public static final class BodiesImpl implements Bodies {
        @Override
        public long twice(long value) {
            return value * 2;
        }

        @Override
        public int size(List<Object> values) {
            return values.size();
        }

        @Override
        public List<Object> same(List<Object> values) {
            return values;
        }
    }

    private final List<Socket> sockets = new ArrayList<>();
    private final List<FrameworkModel> models = new ArrayList<>();
    private int port;

    /** Exports {@link Bodies} with {@code server=sluice}, one I/O thread, hessian2, fastjson2 and {@code params}. */
    private void export(Map<String, String> params) throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        FrameworkModel model = new FrameworkModel();
        models.add(model);
        ProtocolConfig protocol = new ProtocolConfig("dubbo", port);
        protocol.setServer("sluice");
        protocol.setSerialization("hessian2");
        protocol.setIothreads(1);
        Map<String, String> all = new HashMap<>(params);
        all.put("prefer.serialization", "hessian2,fastjson2");
        protocol.setParameters(all);
        ServiceConfig<Bodies> service = new ServiceConfig<>();
        service.setInterface(Bodies.class);
        service.setRef(new BodiesImpl());
        DubboBootstrap.newInstance(model).application(application("bodies-provider"))
                .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE)).protocol(protocol).service(service)
                .start();
    }

    private static ApplicationConfig application(String name) {
        ApplicationConfig application = new ApplicationConfig(name);
        application.setQosEnable(false);
        return application;
    }

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        for (FrameworkModel model : models) {
            DubboProtocol.getDubboProtocol(model).destroy();
            model.destroy();
        }
    }

    private Socket socket() throws IOException {
        return TransporterHostilePeerTest.connect(sockets, port, READ_TIMEOUT_MILLIS);
    }

    /** What one request cost the provider's event loop, and how it was answered. */
    private record Cost(long bytes, long loopCpuNanos, long loopAllocated, int logLines, Frame answer) {
        String text() {
            return new String(answer.body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return bytes + " bytes sent: loop CPU " + loopCpuNanos / 1_000_000 + " ms (" + loopCpuNanos / bytes
                    + " ns/B), loop allocated " + loopAllocated / 1024 + " KiB (" + loopAllocated / bytes
                    + " B/B), " + logLines + " log lines, answered status " + answer.status;
        }

        /** Held to the loop's CPU and allocation bounds and the log budget. */
        void assertBounded() {
            long cpu = LOOP_CPU_BASE_NANOS + LOOP_CPU_NANOS_PER_BYTE * bytes;
            assertTrue(loopCpuNanos <= cpu, "loop CPU over " + cpu / 1_000_000 + " ms: " + this);
            long alloc = LOOP_ALLOC_BASE + LOOP_ALLOC_PER_BYTE * bytes;
            assertTrue(loopAllocated <= alloc, "loop allocation over " + alloc / 1024 + " KiB: " + this);
            assertTrue(logLines <= LOG_LINES, "more than " + LOG_LINES + " log lines: " + this);
        }
    }

    /** The provider's event-loop threads (one here, {@code iothreads=1}). */
    private static long[] loopThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("sluice-server"))
                .mapToLong(Thread::getId).toArray();
    }

    private static long loopCpu(long[] ids) {
        long sum = 0;
        for (long id : ids) {
            sum += Math.max(0, ManagementFactory.getThreadMXBean().getThreadCpuTime(id));
        }
        return sum;
    }

    private static long loopAllocated(long[] ids) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : ids) {
            sum += Math.max(0, threads.getThreadAllocatedBytes(id));
        }
        return sum;
    }

    /** Sends {@code frame} on {@code s}, reads its answer, and measures the loop meanwhile. */
    private static Cost send(Socket s, byte[] frame) throws IOException {
        // Warm: the connection is open and served, so its loop exists and has met Dubbo's codec.
        assertServed(s, 900_000);
        long[] loops = loopThreads();
        assertTrue(loops.length > 0, "no sluice-server thread");
        try (LogLines lines = LogLines.capture("")) {
            long cpu = loopCpu(loops);
            long alloc = loopAllocated(loops);
            s.getOutputStream().write(frame);
            s.getOutputStream().flush();
            Frame answer = read(s.getInputStream());
            return new Cost(frame.length, loopCpu(loops) - cpu, loopAllocated(loops) - alloc, lines.count(),
                    answer);
        }
    }

    /** The connection is served: a two-way heartbeat on it is answered. */
    private static void assertServed(Socket s, long id) throws IOException {
        s.getOutputStream().write(heartbeat(id));
        s.getOutputStream().flush();
        Frame answer = read(s.getInputStream());
        assertEquals(id, answer.id, "the heartbeat's answer");
        assertEquals(20, answer.status, "the heartbeat's answer");
    }

    /** A refused request: status 40 naming {@code limitText} and {@code key}; the same connection and another go on. */
    private void assertRefused(Cost cost, Socket s, String limitText, String key) throws IOException {
        System.out.println(limitText + ": " + cost);
        assertEquals(40, cost.answer.status, "a request over a limit is a bad request: " + cost + ", " + cost.text());
        assertTrue(cost.text().contains(limitText) && cost.text().contains(key), "the answer names the limit ("
                + limitText + ") and its URL key (" + key + "): " + cost.text());
        cost.assertBounded();
        assertServed(s, 900_001);
        assertServed(socket(), 900_002);
    }

    @Test
    void aHessian2BigDecimalOfHundredsOfThousandsOfDigitsIsRefusedByTheWalkNotParsedOnTheLoop() throws Exception {
        export(Map.of());
        Socket s = socket();
        byte[] arg = concat(new byte[] {'X', (byte) 0x91, 'C'}, hessian2("java.math.BigDecimal"),
                new byte[] {(byte) 0x91}, hessian2("value"), new byte[] {0x60}, hessian2("9".repeat(DIGITS)));
        Cost cost = send(s, hessian2Request(1, "size", "Ljava/util/List;", arg));
        assertRefused(cost, s, "limit of 1000 digits", "sluice.max-number-digits");
    }

    @Test
    void aFastjson2NumberTextOfHundredsOfThousandsOfDigitsForALongIsRefusedByTheWalkNotParsedOnTheLoop()
            throws Exception {
        export(Map.of());
        Socket s = socket();
        Cost cost = send(s, fastjson2Request(1, "twice", "J", JSONB.toBytes("9".repeat(DIGITS))));
        assertRefused(cost, s, "limit of 1000 digits", "sluice.max-number-digits");
    }

    @Test
    void aRunOfThousandsOfClassDefinitionsIsRefusedAsTooDeepWithinTheLogBudget() throws Exception {
        export(Map.of());
        Socket s = socket();
        byte[] def = concat(new byte[] {'C'}, hessian2("java.math.BigDecimal"), new byte[] {(byte) 0x91},
                hessian2("value"));
        ByteArrayOutputStream run = new ByteArrayOutputStream();
        run.writeBytes(new byte[] {'X', (byte) 0x91});
        for (int i = 0; i < 4_000; i++) {
            run.writeBytes(def);
        }
        run.writeBytes(new byte[] {0x60});
        run.writeBytes(hessian2("1"));
        Cost cost = send(s, hessian2Request(1, "size", "Ljava/util/List;", run.toByteArray()));
        assertRefused(cost, s, "nested deeper than 128", "sluice.body-check");
    }

    @Test
    void aFrameOfAMillionEmptyListsIsRefusedByTheValueBudgetBeforeDubboBuildsThem() throws Exception {
        export(Map.of());
        Socket s = socket();
        int count = 1_000_001;
        ByteArrayOutputStream lists = new ByteArrayOutputStream(count + 8);
        lists.write('X');
        lists.write('I');
        lists.writeBytes(ByteBuffer.allocate(4).putInt(count).array());
        for (int i = 0; i < count; i++) {
            lists.write(0x78); // an empty untyped list
        }
        Cost cost = send(s, hessian2Request(1, "size", "Ljava/util/List;", lists.toByteArray()));
        assertRefused(cost, s, "over the limit of 1000000", "sluice.max-decoded-elements");
    }

    @Test
    void listsNestedTwentyThousandDeepAreRefusedWithinTheLogBudget() throws Exception {
        export(Map.of());
        Socket s = socket();
        int depth = 20_000;
        ByteArrayOutputStream nested = new ByteArrayOutputStream(depth + 1);
        for (int i = 0; i < depth; i++) {
            nested.write(0x79); // an untyped list of one element: the next list
        }
        nested.write(0x78);
        Cost cost = send(s, hessian2Request(1, "size", "Ljava/util/List;", nested.toByteArray()));
        assertRefused(cost, s, "nested deeper than 128", "sluice.body-check");
    }

    @Test
    void theLimitsAreUrlKeysAndTheCheckCanBeSwitchedOff() throws Exception {
        byte[] digits = fastjson2Request(1, "size", "Ljava/util/List;",
                JSONB.toBytes(List.of(new java.math.BigInteger("9".repeat(1_500)))));
        export(Map.of());
        Socket s = socket();
        assertEquals(40, send(s, digits).answer.status, "1,500 digits are over the default limit");

        export(Map.of("sluice.max-number-digits", "2000"));
        Cost raised = send(socket(), digits);
        assertEquals(20, raised.answer.status, "sluice.max-number-digits=2000: " + raised.text());

        export(Map.of("sluice.max-decoded-elements", "3"));
        Cost few = send(socket(), fastjson2Request(2, "size", "Ljava/util/List;", JSONB.toBytes(List.of(1, 2, 3))));
        assertEquals(40, few.answer.status, "sluice.max-decoded-elements=3: " + few.text());
        assertTrue(few.text().contains("sluice.max-decoded-elements"), few.text());

        export(Map.of("sluice.body-check", "false"));
        Cost off = send(socket(), digits);
        assertEquals(20, off.answer.status, "sluice.body-check=false: Dubbo decodes it: " + off.text());
    }

    @Test
    void wellFormedCallsInBothSerializationsPassTheCheckBothWays() throws Exception {
        export(Map.of());
        for (String serialization : new String[] {"hessian2", "fastjson2"}) {
            FrameworkModel consumerModel = new FrameworkModel();
            models.add(consumerModel);
            ReferenceConfig<Bodies> reference = new ReferenceConfig<>();
            reference.setInterface(Bodies.class);
            reference.setUrl("dubbo://127.0.0.1:" + port + "?serialization=" + serialization);
            reference.setClient("sluice");
            reference.setCheck(false);
            reference.setScope("remote");
            reference.setTimeout(10_000);
            reference.setRetries(0);
            DubboBootstrap.newInstance(consumerModel).application(application("bodies-" + serialization))
                    .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE)).reference(reference).start();
            Bodies bodies = reference.get();
            assertEquals(42L, bodies.twice(21));
            List<Object> values = new ArrayList<>();
            values.add(new java.math.BigDecimal("1".repeat(999) + ".5")); // 1,000 digits: the limit
            values.add(List.of(List.of(List.of("deep"))));
            values.add(Map.of("k", 1L));
            assertEquals(3, bodies.size(values), serialization);
        }
    }

    @Test
    void aHostileProvidersHugeNumberFailsTheCallAtTheConsumerWithoutBeingParsed() throws Exception {
        try (ServerSocket provider = new ServerSocket(0)) {
            FrameworkModel consumerModel = new FrameworkModel();
            models.add(consumerModel);
            ReferenceConfig<Bodies> reference = new ReferenceConfig<>();
            reference.setInterface(Bodies.class);
            reference.setUrl("dubbo://127.0.0.1:" + provider.getLocalPort() + "?serialization=hessian2");
            reference.setClient("sluice");
            reference.setCheck(false);
            reference.setScope("remote");
            reference.setTimeout(60_000);
            reference.setRetries(0);
            DubboBootstrap.newInstance(consumerModel).application(application("bodies-consumer"))
                    .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE)).reference(reference).start();
            Bodies bodies = reference.get();
            java.util.concurrent.CompletableFuture<long[]> callerCpu = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<Throwable> failure = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> {
                        long start = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                        try {
                            bodies.same(List.of());
                            return null;
                        } catch (Throwable t) {
                            return t;
                        } finally {
                            callerCpu.complete(new long[] {
                                ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - start});
                        }
                    });
            Socket peer = provider.accept();
            sockets.add(peer);
            peer.setSoTimeout(READ_TIMEOUT_MILLIS);
            Frame call = read(peer.getInputStream());
            // Flag 1 (a value), then a list of one BigDecimal of DIGITS digits.
            byte[] value = concat(new byte[] {(byte) 0x91, 'X', (byte) 0x91, 'C'}, hessian2("java.math.BigDecimal"),
                    new byte[] {(byte) 0x91}, hessian2("value"), new byte[] {0x60}, hessian2("9".repeat(DIGITS)));
            long[] loops = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("sluice-client")).mapToLong(Thread::getId).toArray();
            long loopCpu = loopCpu(loops);
            peer.getOutputStream().write(concat(ByteBuffer.allocate(16).putShort((short) 0xdabb).put((byte) 0x02)
                    .put((byte) 20).putLong(call.id).putInt(value.length).array(), value));
            Throwable thrown = failure.get(60, java.util.concurrent.TimeUnit.SECONDS);
            long cpu = loopCpu(loops) - loopCpu + callerCpu.get()[0];
            System.out.println("hostile response of " + value.length + " bytes: consumer loop and caller CPU "
                    + cpu / 1_000_000 + " ms, " + thrown);
            assertTrue(thrown != null && String.valueOf(thrown.getMessage()).contains("sluice.max-number-digits"),
                    "the call fails naming the limit's URL key: " + thrown);
            long bound = LOOP_CPU_BASE_NANOS + LOOP_CPU_NANOS_PER_BYTE * value.length;
            assertTrue(cpu <= bound, "the consumer spent " + cpu / 1_000_000 + " ms on a " + value.length
                    + "-byte response (bound " + bound / 1_000_000 + " ms)");
        }
    }

    // ---- frames by hand

    /** A two-way hessian2 request for {@code method(desc)} with argument bytes {@code args}, empty attachments. */
    static byte[] hessian2Request(long id, String method, String desc, byte[] args) {
        byte[] body = concat(hessian2("2.0.2", PATH, "0.0.0", method, desc), args, new byte[] {'H', 'Z'});
        return concat(header(0xc2, id, body.length), body);
    }

    /** A two-way fastjson2 request for {@code method(desc)} with one argument item {@code arg}. */
    static byte[] fastjson2Request(long id, String method, String desc, byte[] arg) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (Object item : new Object[] {"2.0.2", PATH, "0.0.0", method, desc}) {
            item(body, JSONB.toBytes(item));
        }
        item(body, arg);
        item(body, JSONB.toBytes(Map.of("path", PATH)));
        return concat(header(0xd7, id, body.size()), body.toByteArray());
    }

    private static void item(ByteArrayOutputStream body, byte[] jsonb) {
        body.writeBytes(ByteBuffer.allocate(4).putInt(jsonb.length).array());
        body.writeBytes(jsonb);
    }

    /** Values written by hessian-lite, the library Dubbo uses, as one stream. */
    static byte[] hessian2(Object... values) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Hessian2Output out = new Hessian2Output(bytes);
        try {
            for (Object v : values) {
                out.writeObject(v);
            }
            out.flush();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
