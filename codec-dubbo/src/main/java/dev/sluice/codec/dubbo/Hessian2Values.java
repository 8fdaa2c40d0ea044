package dev.sluice.codec.dubbo;

import com.alibaba.com.caucho.hessian.io.Deserializer;
import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.HessianProtocolException;
import com.alibaba.com.caucho.hessian.io.Serializer;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Hessian2 values (serialization id 2, Dubbo 3.3's default) read and written with Dubbo's own library, hessian-lite,
 * so the bytes are the ones a Dubbo peer writes and reads (docs/wire-format.md §5).
 *
 * <p><b>Strict reading.</b> Every body is first walked by {@link Hessian2Bounds} (declared lengths, nesting,
 * references), then read through a {@link SerializerFactory} that asks the {@link ClassAllowlist} before it looks up
 * any class a peer names: a refused name throws {@link ClassNotAllowedException} out of the read, before anything is
 * loaded or initialised. hessian-lite's own {@code java.time} and {@code Locale} handle classes are accepted where the
 * values they stand for are. A name the allowlist reads as a substitute (fastjson2's {@code JSONObject} and
 * {@code JSONArray}, which a Dubbo provider may hold and write back) is read as that JDK map or list, and never looked
 * up.
 *
 * <p><b>Without hessian-lite's per-object work.</b> The common values (strings, numbers, lists, maps,
 * {@code java.time} values and beans of accepted classes) are read by {@link Hessian2Reader} and written by
 * {@link Hessian2Writer} to the same objects and bytes; whatever they do not reproduce goes through hessian-lite as
 * described above.
 *
 * <p><b>Threads.</b> Thread-safe: reads may run on an event loop or on the thread that waits for a result; each read
 * uses its own {@link Hessian2Input}. Writes run on the sending thread, with that thread's reusable
 * {@link Hessian2Output}.
 */
final class Hessian2Values {
    /**
     * hessian-lite's own type names, which name no class ({@code SerializerFactory}'s static type map in 4.0.4);
     * arrays of them and of accepted classes are {@code "["} and the component.
     */
    private static final Set<String> BUILT_IN_TYPES = Set.of("void", "boolean", "byte", "short", "int", "long",
            "float", "double", "char", "string", "object", "date", "[boolean", "[byte", "[short", "[int", "[long",
            "[float", "[double", "[char", "[string", "[object");
    /** hessian-lite's handle classes for {@code java.time} values and {@code Locale}, which it writes by name. */
    private static final Set<String> HANDLES = Set.of("com.alibaba.com.caucho.hessian.io.LocaleHandle",
            handle("Duration"), handle("Instant"), handle("LocalDate"), handle("LocalDateTime"), handle("LocalTime"),
            handle("MonthDay"), handle("OffsetDateTime"), handle("OffsetTime"), handle("Period"), handle("Year"),
            handle("YearMonth"), handle("ZoneId"), handle("ZoneOffset"), handle("ZonedDateTime"));
    /** Deepest array type name accepted, as {@link ClassAllowlist} does for fastjson2. */
    private static final int MAX_ARRAY_DIMENSIONS = 8;
    private static final String TOO_DEEP_ARRAY = "[".repeat(MAX_ARRAY_DIMENSIONS + 1);
    /**
     * The writer's own factory: writing names no class from the wire, so it needs no allowlist. It writes a
     * {@link GenericException} under Dubbo's name ({@link GenericExceptionWire}).
     */
    static final SerializerFactory WRITE_FACTORY = new SerializerFactory() {
        @Override
        public Serializer getObjectSerializer(Class<?> cl) throws HessianProtocolException {
            return GenericException.class.isAssignableFrom(cl) ? GenericExceptionWire.INSTANCE
                    : super.getObjectSerializer(cl);
        }

        @Override
        public Serializer getSerializer(Class cl) throws HessianProtocolException {
            return GenericException.class.isAssignableFrom(cl) ? GenericExceptionWire.INSTANCE
                    : super.getSerializer(cl);
        }
    };
    private static final ThreadLocal<Hessian2Output> OUTPUT = ThreadLocal.withInitial(() -> {
        Hessian2Output out = new Hessian2Output(null);
        out.setSerializerFactory(WRITE_FACTORY);
        return out;
    });

    private final SerializerFactory readFactory;

    private static String handle(String value) {
        return "com.alibaba.com.caucho.hessian.io.java8." + value + "Handle";
    }

    Hessian2Values(ClassAllowlist allowlist) {
        this.readFactory = new AllowlistFactory(allowlist);
    }

    /** A reader of {@code b[off, end)}, which {@link Hessian2Bounds} has already walked. */
    Hessian2Input input(byte[] b, int off, int end) {
        Hessian2Input in = new Hessian2Input(new ByteArrayInputStream(b, off, end - off));
        in.setSerializerFactory(readFactory);
        return in;
    }

    /**
     * A reader of {@code b[off, end)} (walked by {@link Hessian2Bounds}) that builds the common values without
     * hessian-lite ({@link Hessian2Reader}), or null when that is off. Whatever it gives up on ({@link
     * Hessian2Reader.Give}) is to be read again from the start with {@link #input}.
     */
    Hessian2Reader reader(byte[] b, int off, int end) {
        return Hessian2Beans.ENABLED ? new Hessian2Reader(readFactory, b, off, end) : null;
    }

    /** Reads the next value of {@code r} as {@code type} and checks that it is one, as {@link #read} does. */
    static Object read(Hessian2Reader r, Type type) {
        return ValueTypes.checked(r.read(ValueTypes.rawClass(type)), type);
    }

    /** Reads the one value of {@code b[off, end)} as {@code type}: with {@link Hessian2Reader}, else hessian-lite. */
    Object readOne(byte[] b, int off, int end, Type type) {
        Hessian2Reader r = reader(b, off, end);
        if (r != null) {
            try {
                return read(r, type);
            } catch (Hessian2Reader.Give g) {
                // hessian-lite reads it, from the start
            }
        }
        return read(input(b, off, end), type);
    }

    /** Reads a map of attachments standing alone in {@code b[off, end)}, as {@link #readAttachments}. */
    @SuppressWarnings("unchecked")
    Map<String, Object> readAttachments(byte[] b, int off, int end) {
        Object v = readOne(b, off, end, Map.class);
        return v == null ? new HashMap<>() : (Map<String, Object>) v;
    }

    /** Reads the next value of {@code in} as {@code type} and checks that it is one. */
    static Object read(Hessian2Input in, Type type) {
        Class<?> raw = ValueTypes.rawClass(type);
        try {
            Object v;
            // As Dubbo's Hessian2ObjectInput: the raw class only. hessian2 values carry their own class names, and
            // hessian-lite's element-type variant failed on a List<Item> of our type suite (StandaloneHessian2Test).
            if (raw == null || raw == Object.class) {
                v = in.readObject();
            } else {
                v = in.readObject(raw);
            }
            return ValueTypes.checked(v, type);
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable hessian2 value: " + e.getMessage(), e);
        } catch (StackOverflowError e) {
            throw new IllegalArgumentException("a hessian2 value is nested too deeply to read");
        }
    }

    /** Reads a map of attachments: Dubbo writes them as an untyped hessian2 map. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> readAttachments(Hessian2Input in) {
        Object v = read(in, Map.class);
        if (v == null) {
            return new HashMap<>();
        }
        return (Map<String, Object>) v;
    }

    /**
     * Writes values into {@code out} as one hessian2 stream (class definitions are shared between them, as in a
     * Dubbo body). Runs on the sending thread.
     *
     * @throws IllegalArgumentException when hessian-lite cannot write a value (e.g. not {@code Serializable})
     */
    static void write(ByteBuf out, Object... values) {
        write(new ByteBufOutputStream(out), values);
    }

    /** As {@link #write(ByteBuf, Object...)}, into {@code stream} (one that may refuse to take more). */
    static void write(OutputStream stream, Object... values) {
        Hessian2Output h = OUTPUT.get();
        h.init(stream);
        try {
            for (Object v : values) {
                h.writeObject(v);
            }
            h.flushBuffer();
        } catch (IOException e) {
            throw new IllegalArgumentException("hessian2 cannot write the value: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("hessian2 cannot write the value: " + e, e);
        } finally {
            h.init(null); // drop the buffer and the references of this frame
        }
    }

    /** A result flag, as Dubbo writes it ({@code writeByte} is a hessian2 int). */
    static void writeInt(ByteBuf out, int v) {
        Hessian2Output h = OUTPUT.get();
        h.init(new ByteBufOutputStream(out));
        try {
            h.writeInt(v);
            h.flushBuffer();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteBuf does not fail
        } finally {
            h.init(null);
        }
    }

    /**
     * Resolves type names through the allowlist before hessian-lite looks anything up. Every name goes through here
     * (typed maps and lists, class definitions; an array's component comes back per dimension): one the allowlist
     * does not accept is refused with a {@link ClassNotAllowedException}, dotted or not, so hessian-lite never tries
     * to load it. hessian-lite logs a JUL WARNING for each name it cannot load and keeps the name forever, in a static
     * map and in this factory: a peer sending distinct names would fill the log and the heap (docs/reliability.md
     * G32).
     */
    private static final class AllowlistFactory extends SerializerFactory {
        private final ClassAllowlist allowlist;

        AllowlistFactory(ClassAllowlist allowlist) {
            super(AllowlistFactory.class.getClassLoader());
            this.allowlist = allowlist;
        }

        @Override
        public Deserializer getDeserializer(String type) throws HessianProtocolException {
            if (type == null || type.isEmpty() || BUILT_IN_TYPES.contains(type) || HANDLES.contains(type)) {
                return super.getDeserializer(type); // no class, or hessian-lite's own
            }
            if (type.charAt(0) == '[') {
                // hessian-lite asks for the component through this method again, and caches each array name.
                if (type.startsWith(TOO_DEEP_ARRAY)) {
                    throw new ClassNotAllowedException(type);
                }
                return super.getDeserializer(type);
            }
            Class<?> c = allowlist.resolveAllowed(type);
            if (c == null) {
                throw new ClassNotAllowedException(type);
            }
            if (!c.getName().equals(type)) {
                // A name read as another class (fastjson2's JSONObject as a LinkedHashMap, …): build that one,
                // never look up the name.
                return getDeserializer(c);
            }
            return super.getDeserializer(type);
        }

        /** Objects' integral fields take only integers in range (docs/reliability.md A31a). */
        @Override
        protected Deserializer getDefaultDeserializer(Class cl) {
            return Hessian2IntegralFields.strict(super.getDefaultDeserializer(cl), cl, getFieldDeserializerFactory());
        }

        @Override
        public Class<?> loadSerializedClass(String className) throws ClassNotFoundException {
            if (!HANDLES.contains(className) && !allowlist.isAllowed(className)) {
                throw new ClassNotFoundException("refused by the deserialization allowlist: " + className);
            }
            return super.loadSerializedClass(className);
        }
    }
}
