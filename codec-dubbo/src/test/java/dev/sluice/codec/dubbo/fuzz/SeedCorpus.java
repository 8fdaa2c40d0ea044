package dev.sluice.codec.dubbo.fuzz;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static dev.sluice.codec.dubbo.TestBytes.frame;
import static dev.sluice.codec.dubbo.fuzz.FuzzDecoders.LIMIT;
import static dev.sluice.codec.dubbo.fuzz.FuzzDecoders.header;

import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.Vectors;
import dev.sluice.codec.dubbo.model.Box;
import dev.sluice.codec.dubbo.model.Color;
import dev.sluice.codec.dubbo.model.TypesException;
import dev.sluice.codec.dubbo.model.TypesService;
import java.io.IOException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * The seed corpora of the fuzz targets, generated from the golden frames captured from Dubbo 3.3.6 (read through
 * {@link Vectors}) and from {@code TypesService} calls encoded by our encoder. The generated files
 * are committed under {@code src/test/resources/dev/sluice/codec/dubbo/fuzz/<Target>Inputs/<method>/}, where
 * Jazzer finds them (and replays them as regression tests without {@code JAZZER_FUZZ}); {@code SeedCorpusTest}
 * fails when they are out of date. Regenerate them (from the repository root) with
 *
 * <pre>
 * mvn -B -pl codec-dubbo test -Dtest=SeedCorpusTest -Dsluice.fuzz.writeSeeds=true
 * </pre>
 *
 * Only files named {@code seed-*} are written or deleted; committed findings ({@code crash-*}) are left alone.
 */
public final class SeedCorpus {
    static final String FRAMES_DIR = "FrameDecoderFuzzTestInputs/frames";
    static final String BODIES_DIR = "BodyDecoderFuzzTestInputs/bodies";
    static final String[] VECTORS = {"existUser.request", "existUser.response", "getUser.request",
        "getUser.response", "createUser.request", "createUser.response", "listUser.request", "listUser.response",
        "heartbeat.request", "heartbeat.response"};

    private SeedCorpus() {
    }

    /** Writes the seed files under {@code args[0]} (default {@code src/test/resources}, run from codec-dubbo). */
    public static void main(String[] args) throws IOException {
        Path root = Paths.get(args.length > 0 ? args[0] : "src/test/resources")
                .resolve("dev/sluice/codec/dubbo/fuzz");
        write(root.resolve(FRAMES_DIR), frames());
        write(root.resolve(BODIES_DIR), bodies());
    }

    private static void write(Path dir, Map<String, byte[]> seeds) throws IOException {
        Files.createDirectories(dir);
        try (Stream<Path> old = Files.list(dir)) {
            for (Path p : (Iterable<Path>) old::iterator) {
                if (p.getFileName().toString().startsWith("seed-")) {
                    Files.delete(p);
                }
            }
        }
        for (Map.Entry<String, byte[]> e : seeds.entrySet()) {
            Files.write(dir.resolve(e.getKey()), e.getValue());
        }
        System.out.println(seeds.size() + " seeds in " + dir);
    }

    /** Raw byte streams for {@link FrameDecoderFuzzTest}. */
    static Map<String, byte[]> frames() {
        Map<String, byte[]> seeds = new TreeMap<>();
        List<byte[]> requests = new ArrayList<>();
        List<byte[]> responses = new ArrayList<>();
        for (String v : VECTORS) {
            byte[] frame = Vectors.frame(v);
            seeds.put("seed-vector-" + v, frame);
            (v.endsWith(".request") ? requests : responses).add(frame);
        }
        for (String v : VECTORS) {
            seeds.put("seed-hessian2-vector-" + v, Vectors.hessian2(v));
        }
        seeds.put("seed-pipelined-requests", concat(requests.toArray(new byte[0][])));
        seeds.put("seed-pipelined-responses", concat(responses.toArray(new byte[0][])));
        byte[] list = Vectors.frame("listUser.response");
        byte[] get = Vectors.frame("getUser.request");
        seeds.put("seed-one-and-a-half", concat(get, Arrays.copyOf(list, list.length / 2)));
        seeds.put("seed-truncated-header", Arrays.copyOf(get, 9));
        seeds.put("seed-huge-length", concat(header(0xd7, 0, 77L, 0x7fffffff), Arrays.copyOfRange(get, 16, 80)));
        seeds.put("seed-negative-length-then-valid", concat(header(0xd7, 0, 78L, -1), get));
        seeds.put("seed-zero-length-then-valid", concat(header(0xd7, 0, 79L, 0), get));
        seeds.put("seed-oversized-then-valid", concat(header(0xd7, 0, 80L, LIMIT + 1), new byte[LIMIT + 1], get));
        byte[] atLimit = new byte[LIMIT];
        System.arraycopy(get, 16, atLimit, 0, get.length - 16);
        seeds.put("seed-body-at-limit", concat(header(0xd7, 0, 81L, LIMIT), atLimit));
        seeds.put("seed-declared-longer-than-items", concat(header(0xd7, 0, 82L, get.length - 16 + 40),
                Arrays.copyOfRange(get, 16, get.length), new byte[40], Vectors.frame("existUser.request")));
        seeds.put("seed-wrong-magic", concat(new byte[] {0, 0}, get));
        seeds.put("seed-wrong-magic-low", concat(new byte[] {(byte) 0xda, 0x00}, Arrays.copyOfRange(get, 2, 40)));
        seeds.put("seed-hessian2-events", concat(header(0xe2, 0, 83L, 1), new byte[] {0x4e},
                header(0xa2, 0, 84L, 2), new byte[] {0x01, 0x52}, header(0x22, 20, 85L, 1), new byte[] {0x4e}));
        for (Map.Entry<String, byte[]> e : encodedFrames().entrySet()) {
            seeds.put("seed-" + e.getKey(), e.getValue());
        }
        return seeds;
    }

    /** Control byte, id byte and body for {@link BodyDecoderFuzzTest}, from every single well-formed frame. */
    static Map<String, byte[]> bodies() {
        Map<String, byte[]> seeds = new TreeMap<>();
        Map<String, Integer> typeIndex = Map.of("getUser.response", 1, "listUser.response", 2,
                "existUser.response", 3, "createUser.response", 3);
        for (String v : VECTORS) {
            seeds.put("seed-vector-" + v, body(Vectors.frame(v), typeIndex.getOrDefault(v, 0)));
            seeds.put("seed-hessian2-vector-" + v, body(Vectors.hessian2(v), typeIndex.getOrDefault(v, 0)));
        }
        for (Map.Entry<String, byte[]> e : encodedFrames().entrySet()) {
            int type = e.getKey().contains("generics") ? 7 : e.getKey().contains("user") ? 1 : 0;
            seeds.put("seed-" + e.getKey(), body(e.getValue(), type));
        }
        seeds.put("seed-hessian2-heartbeat", body(concat(header(0xe2, 0, 83L, 1), new byte[] {0x4e}), 0));
        seeds.put("seed-hessian2-readonly", body(concat(header(0xa2, 0, 84L, 2), new byte[] {0x01, 0x52}), 0));
        return seeds;
    }

    /** {@link BodyDecoderFuzzTest}'s layout for one frame: control byte (see its header method), id byte, body. */
    static byte[] body(byte[] frame, int returnTypeIndex) {
        int flags = frame[2] & 0xff;
        int status = frame[3] & 0xff;
        int control;
        if ((flags & 0x80) != 0) {
            control = (flags & 0x20) != 0 ? 2 | ((flags & 0x40) != 0 ? 0x80 : 0) : (flags & 0x40) != 0 ? 0 : 1;
        } else {
            control = 3 | ((flags & 0x20) != 0 ? 0x80 : 0);
            int[] statuses = {20, -1, -1, -1, 25, 40, 70, 90};
            for (int i = 0; i < statuses.length; i++) {
                if (statuses[i] == status) {
                    control |= i << 4;
                    break;
                }
            }
        }
        int ser = flags & 0x1f;
        control |= (ser == 23 ? 0 : ser == 2 ? 2 : 3) << 2;
        return concat(new byte[] {(byte) control, (byte) returnTypeIndex}, Arrays.copyOfRange(frame, 16,
                frame.length));
    }

    /** Requests and responses of every TypesService method, as our encoder writes them. */
    static Map<String, byte[]> encodedFrames() {
        Map<String, byte[]> frames = new TreeMap<>();
        User user = fixed(new UserServiceServerImpl().getUser(9));
        org.apache.dubbo.benchmark.bean.Page<User> page = new UserServiceServerImpl().listUser(2);
        page.getResult().forEach(SeedCorpus::fixed);
        Map<String, Object> attachments = new HashMap<>();
        attachments.put("path", TypesService.class.getName());
        attachments.put("interface", TypesService.class.getName());
        attachments.put("version", FuzzDecoders.TYPES_VERSION);
        attachments.put("timeout", "1000");
        attachments.put("trace-id", 42L);
        Object[][] calls = {
            {"primitives", Integer.MIN_VALUE, Long.MAX_VALUE, Math.PI, 1.5f, (short) -300, (byte) 7, '字', true},
            {"strings", "plain ascii", "北京市 中关村", "emoji 😀👍🏽 ünïcödé", "a".repeat(300), ""},
            {"times", LocalDate.of(1968, 12, 8), LocalDateTime.of(2024, 2, 29, 23, 59, 59, 123_456_789),
                LocalTime.of(7, 8, 9, 10), Instant.ofEpochSecond(1_700_000_000L, 42), Duration.ofMillis(1234),
                OffsetDateTime.of(2020, 1, 2, 3, 4, 5, 6, ZoneOffset.ofHours(8)), new Date(1_600_000_000_123L)},
            {"numbers", new BigDecimal("-12345678901234567890.000000001"), new BigInteger("9".repeat(40)), 5, null},
            {"enums", Color.GREEN, List.of(Color.RED, Color.BLUE)},
            {"collections", new ArrayList<>(List.of("x", "y")), new LinkedHashSet<>(List.of(3L, 1L, 2L)),
                new HashMap<>(Map.of("a", 1, "b", 2)), List.of(List.of("n1"), List.of("n2", "n3"))},
            {"arrays", new int[] {1, -1, 300}, new String[] {"a", null, "c"}, new long[][] {{1L}, {2L, 3L}},
                new byte[] {0, 1, (byte) 0xff}, new User[] {user}},
            {"generics", new Box<>(user, List.of(new Box.Inner(Color.RED, new long[] {1, 2})),
                new HashMap<>(Map.of("k", List.of(1, 2)))), page},
            {"anything", user},
            {"nothing", "ignored"},
        };
        long id = 1000;
        for (Object[] call : calls) {
            String name = (String) call[0];
            Object[] args = Arrays.copyOfRange(call, 1, call.length);
            DubboMethod m = DubboMethod.of(TypesService.class, method(name), FuzzDecoders.TYPES_VERSION);
            frames.put("types-" + name + ".request", frame(DubboRequest.invocation(id++, m, args, attachments)));
        }
        frames.put("types-anything-user.response", frame(DubboResponse.value(id++, (byte) 23, user,
                DubboResponse.DEFAULT_ATTACHMENTS)));
        frames.put("types-generics.response", frame(DubboResponse.value(id++, (byte) 23, calls[7][1],
                DubboResponse.DEFAULT_ATTACHMENTS)));
        frames.put("types-anything-map.response", frame(DubboResponse.value(id++, (byte) 23,
                new HashMap<>(Map.of("when", LocalDate.of(2024, 1, 2), "n", new BigDecimal("12.50"),
                        "list", new ArrayList<>(List.of(1, "two", 3.0)))), null)));
        frames.put("types-exception.response", frame(DubboResponse.exception(id++, (byte) 23,
                fixed(new TypesException("declared", 42)), DubboResponse.DEFAULT_ATTACHMENTS)));
        frames.put("types-jdk-exception.response", frame(DubboResponse.exception(id++, (byte) 23,
                fixed(new IllegalArgumentException("with cause", fixed(new NullPointerException("inner")))), null)));
        frames.put("types-error-status.response", frame(DubboResponse.error(id++, (byte) 23, (byte) 70,
                "java.lang.IllegalStateException: boom")));
        frames.put("types-readonly-event.request", frame(DubboRequest.readonlyEvent(id, (byte) 23)));
        return frames;
    }

    /** The same bytes on every run: no clock in the seeds. */
    private static User fixed(User u) {
        u.setCreateTime(LocalDateTime.of(2024, 5, 6, 7, 8, 9));
        u.setUpdateTime(LocalDateTime.of(2024, 5, 6, 7, 8, 9));
        return u;
    }

    /** The same bytes on every run: a stack trace that does not depend on who called. */
    private static <T extends Throwable> T fixed(T t) {
        t.setStackTrace(new StackTraceElement[] {new StackTraceElement("dev.sluice.demo.Service", "call",
                "Service.java", 42)});
        return t;
    }

    private static Method method(String name) {
        for (Method m : TypesService.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

}
