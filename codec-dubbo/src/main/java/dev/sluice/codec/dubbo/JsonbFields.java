package dev.sluice.codec.dubbo;

import com.alibaba.fastjson2.JSONFactory;
import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.reader.FieldReader;
import com.alibaba.fastjson2.reader.ObjectReader;
import com.alibaba.fastjson2.reader.ObjectReaderAdapter;
import com.alibaba.fastjson2.util.Fnv;
import dev.sluice.codec.dubbo.internal.DeclaredTypes;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Integral fields of the objects in a JSONB item, checked against their declared types before fastjson2 reads it
 * (docs/reliability.md A31b): a field of type {@code long}, {@code int}, {@code short} or {@code byte} (boxed or not)
 * takes only a JSONB integer in that type's range, or null, as a parameter does (A31) and as a hessian2 field does
 * (A31a). fastjson2's bean readers narrow whatever comes ({@code 3.7} as 3, {@code 1e30} as the largest int,
 * {@code 2^40} in an int as 0, text through {@code BigDecimal}), and the per-field hooks it offers are not used by the
 * generated readers, so the check is a walk of the item driven by the declared type: beans by their fields, lists,
 * sets and arrays by their element type, maps by key and value type, and where the declared type is {@code Object}, an
 * interface or an abstract class, by the class a typed value names (only a class the item's reader context would
 * accept: its {@link ClassAllowlist}, asked by name, so nothing the allowlist refuses is loaded here either).
 *
 * <p>Fields are matched by name as fastjson2 matches them (the hash of the name, against the field readers of the
 * bean's fastjson2 reader, so renamed and alternate names count); field names given as symbols are followed through
 * the item's symbol table. A field name that is not a string or a symbol ends the walk of that bean (fastjson2 refuses
 * it). The item has already been walked by {@link JsonbBounds}, so every token is whole and nesting is bounded.
 *
 * <p>Cost: one pass over the item, constant work per token; the plan of each declared type (its fields' types and
 * name hashes, from fastjson2's reader) is built once per type and cached. Values are never parsed: a number that is
 * not an integer is refused by its type byte.
 *
 * <p>Threads: any; {@link #check} keeps its state in a walker of its own, the plan cache is concurrent.
 */
final class JsonbFields {
    private static final ConcurrentHashMap<Type, Plan> PLANS = new ConcurrentHashMap<>();
    private static final Plan NONE = new Plan(Plan.NONE, null);
    private static final Plan ANY = new Plan(Plan.ANY, null);
    private static final String TYPE_KEY = "@type";
    /** Symbol ids below this are kept in arrays; the rare larger ones (a peer's choice) in a map. */
    private static final int NEAR_SYMBOLS = 1024;

    private final byte[] b;
    /** The end of the item: a walk that strays (fastjson2 refuses what made it) stops there. */
    private final int end;
    private final JSONReader.Context context;
    /** Symbol names by id, for field and type names given by reference; ids beyond the arrays in {@link #far}. */
    private String[] symbolNames;
    private long[] symbolHashes;
    private Map<Integer, String> far;
    /** Where the name read last ({@link #fieldName}, {@link #typeName}) ends. */
    private int after;
    /** The name hash of the name read last, 0 if not known yet. */
    private long hash;
    /** The field whose value is being walked, for messages. */
    private String field;

    private JsonbFields(byte[] b, int end, JSONReader.Context context) {
        this.b = b;
        this.end = end;
        this.context = context;
    }

    /**
     * Walks the item {@code b[off, off + n)} (already checked by {@link JsonbBounds#check}) as {@code type}.
     *
     * @param context the reader context fastjson2 will read the item with: its allowlist names the classes of typed
     *     values
     * @throws IllegalArgumentException naming the field, its type and range, and what was sent instead, when an
     *     integral parameter, field or element holds anything but an integer in range or null
     */
    static void check(byte[] b, int off, int n, Type type, JSONReader.Context context) {
        Plan plan = plan(type);
        if (plan.kind == Plan.NONE || n == 0) {
            return;
        }
        if (plan.kind == Plan.INTEGRAL) {
            JsonbBounds.checkIntegral(b, off, n, type); // the parameter's own message (A31)
            return;
        }
        new JsonbFields(b, off + n, context).walk(off, plan);
    }

    /** Walks the value at {@code p} as {@code plan}; returns the position after it. */
    private int walk(int p, Plan plan) {
        if (p >= end) {
            return end;
        }
        int t = b[p] & 0xff;
        if (plan.kind == Plan.INTEGRAL) {
            JsonbBounds.checkIntegral(b, p, plan.max, plan.type.getName(), field);
            return skip(p);
        }
        if (t == 0xaf || plan.kind == Plan.NONE) {
            return skip(p);
        }
        if (t == 0x92) { // typed value: the class it names, where the declared type leaves a choice
            String name = typeName(p + 1);
            return walk(after, typed(plan, name));
        }
        switch (plan.kind) {
            case Plan.ELEMENTS:
                return elements(p, plan.element);
            case Plan.MAP:
                return t == 0xa6 ? entries(p + 1, plan.key, plan.element) : skip(p);
            case Plan.BEAN:
                return bean(p, plan);
            default: // ANY: untyped containers hold values of any type
                if (isArray(t)) {
                    return elements(p, ANY);
                }
                return t == 0xa6 ? entries(p + 1, NONE, ANY) : skip(p);
        }
    }

    /** The plan for a value typed {@code name} where {@code declared} is expected. */
    private Plan typed(Plan declared, String name) {
        if (declared.kind != Plan.BEAN && declared.kind != Plan.ANY || name == null
                || declared.type != null && declared.type.getName().equals(name)) {
            return declared;
        }
        Class<?> named = null;
        if (context != null && context.getContextAutoTypeBeforeHandler() instanceof ClassAllowlist) {
            named = ((ClassAllowlist) context.getContextAutoTypeBeforeHandler()).allowedClass(name);
        }
        if (named == null || declared.type != null && !declared.type.isAssignableFrom(named)) {
            return declared; // refused or not a subtype: fastjson2 refuses it or reads the declared type
        }
        return plan(named);
    }

    private int elements(int p, Plan element) {
        int t = b[p] & 0xff;
        long count;
        if (t >= 0x94 && t <= 0xa3) {
            count = t - 0x94;
            p++;
        } else if (t == 0xa4) {
            count = JsonbBounds.intValue(b, p + 1);
            p = JsonbBounds.intEnd(b, p + 1, b.length);
        } else {
            return skip(p);
        }
        for (long i = 0; i < count; i++) {
            p = walk(p, element);
        }
        return p;
    }

    /** Map entries from {@code p} (after the object start) to the object end. */
    private int entries(int p, Plan key, Plan value) {
        while (p < end && b[p] != (byte) 0xa5) {
            p = walk(walk(p, key), value);
        }
        return Math.min(p + 1, end);
    }

    /**
     * A bean as fastjson2's bean reader takes it: a typed value, an array of the fields in order, or name-value pairs
     * to the object end (the object start is optional), the first name possibly {@code "@type"}.
     */
    private int bean(int p, Plan plan) {
        Plan.Fields fields = plan.fields();
        if (fields == null) { // a class fastjson2 does not read field by field: whatever it holds, untyped
            return walk(p, ANY);
        }
        int t = b[p] & 0xff;
        if (t == 0x93) {
            return skip(p); // a reference to a value already read
        }
        String outer = field;
        try {
            if (isArray(t)) { // fields by position
                int count;
                if (t == 0xa4) {
                    count = (int) JsonbBounds.intValue(b, p + 1);
                    p = JsonbBounds.intEnd(b, p + 1, b.length);
                } else {
                    count = t - 0x94;
                    p++;
                }
                for (int i = 0; i < count; i++) {
                    field = i < fields.plans.length ? fields.names[i] : outer;
                    p = walk(p, i < fields.plans.length ? fields.plans[i] : NONE);
                }
                return p;
            }
            if (t == 0xa6) {
                p++;
            }
            for (int i = 0; p < end && b[p] != (byte) 0xa5; i++) {
                String name = fieldName(p); // null: a symbol not defined, or a token fastjson2 refuses as a name
                p = after;
                if (i == 0 && TYPE_KEY.equals(name) && isString(b[p] & 0xff)) { // fastjson2's type key
                    Plan named = typed(plan, string(p));
                    p = skip(p);
                    if (named != plan) {
                        return bean(p, named);
                    }
                    continue;
                }
                int index = name == null ? -1 : fields.index(hash != 0 ? hash : Fnv.hashCode64(name));
                field = index < 0 ? outer : fields.names[index];
                p = walk(p, index < 0 ? NONE : fields.plans[index]);
            }
            return Math.min(p + 1, end);
        } finally {
            field = outer;
        }
    }

    /**
     * A field name at {@code p}, as fastjson2's JSONB reader takes one: a symbol reference, a symbol definition
     * (a string, then its id) or a plain string; {@code null} for anything else. Sets {@link #after} and
     * {@link #hash} (0 when the name's hash is not known yet).
     */
    private String fieldName(int p) {
        if (b[p] == 0x7f) {
            return symbolAt(p + 1);
        }
        after = skip(p);
        hash = 0;
        return isString(b[p] & 0xff) ? string(p) : null;
    }

    /** After {@code 0x92}: a type name given as a symbol, by id, or as a string with its id. Sets {@link #after}. */
    private String typeName(int p) {
        return symbolAt(b[p] == 0x7f ? p + 1 : p);
    }

    /**
     * At {@code p} (after {@code 0x7f}, or a type name): a symbol id, or a string and the id it defines; its name.
     * Sets {@link #after} and {@link #hash}.
     */
    private String symbolAt(int p) {
        if (isInt32(b[p])) {
            after = JsonbBounds.intEnd(b, p, b.length);
            long id = JsonbBounds.intValue(b, p);
            if (symbolNames != null && id >= 0 && id < symbolNames.length) {
                String name = symbolNames[(int) id];
                if (name != null && symbolHashes[(int) id] == 0) {
                    symbolHashes[(int) id] = Fnv.hashCode64(name);
                }
                hash = symbolHashes[(int) id];
                return name;
            }
            hash = 0;
            return far == null ? null : far.get((int) id);
        }
        int next = skip(p);
        String name = string(p);
        define(next, name);
        after = JsonbBounds.intEnd(b, next, b.length);
        hash = 0;
        return name;
    }

    private void define(int idAt, String name) {
        long id = JsonbBounds.intValue(b, idAt);
        if (id >= 0 && id < NEAR_SYMBOLS) {
            if (symbolNames == null || id >= symbolNames.length) {
                int n = (int) Math.min(NEAR_SYMBOLS, Math.max(16, 2 * id + 2));
                symbolNames = symbolNames == null ? new String[n] : Arrays.copyOf(symbolNames, n);
                symbolHashes = symbolHashes == null ? new long[n] : Arrays.copyOf(symbolHashes, n);
            }
            symbolNames[(int) id] = name;
            symbolHashes[(int) id] = 0;
        } else {
            if (far == null) {
                far = new HashMap<>();
            }
            far.put((int) id, name);
        }
    }

    /** The string token at {@code p}, or {@code null} if it is not one fastjson2 names things with. */
    private String string(int p) {
        int t = b[p] & 0xff;
        if (t >= 0x49 && t <= 0x78) {
            return new String(b, p + 1, t - 0x49, StandardCharsets.ISO_8859_1);
        }
        if (t != 0x79 && t != 0x7a) {
            return null;
        }
        int from = JsonbBounds.intEnd(b, p + 1, b.length);
        int n = (int) JsonbBounds.intValue(b, p + 1);
        return new String(b, from, n, t == 0x79 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
    }

    /** The position after the value at {@code p}, defining the symbols it holds on the way. */
    private int skip(int p) {
        int t = b[p];
        int u = t & 0xff;
        if (t >= -16 && t <= 47 || u >= 0xd8 && u <= 0xef || t >= 0x30 && t <= 0x48 || u >= 0xbc && u <= 0xd7) {
            return JsonbBounds.intEnd(b, p, b.length); // every integer form
        }
        if (t >= 0x49 && t <= 0x78) {
            return p + 1 + t - 0x49;
        }
        if (t >= 0x79 && t <= 0x7e || u == 0x91 || u == 0xbb) { // sized: strings, binary, big integer
            return JsonbBounds.intEnd(b, p + 1, b.length) + (int) JsonbBounds.intValue(b, p + 1);
        }
        if (t == 0x7f) {
            symbolAt(p + 1);
            return after;
        }
        if (isArray(u)) {
            return elements(p, NONE);
        }
        switch (u) {
            case 0x90: // char: an int
            case 0x93: // reference: a path
            case 0xb4: // double, float, decimal, big integer as a number
            case 0xb6:
            case 0xb8:
            case 0xba:
                return skip(p + 1);
            case 0x92:
                typeName(p + 1);
                return skip(after);
            case 0xa6:
                return entries(p + 1, NONE, NONE);
            case 0xa7: // LocalTime: 3 bytes, nanos
                return skip(p + 4);
            case 0xa8: // LocalDateTime: 7 bytes, nanos
                return skip(p + 8);
            case 0xaa: // ZonedDateTime: 7 bytes, nanos, zone id
                return skip(skip(p + 8));
            case 0xa9:
            case 0xac:
            case 0xad:
            case 0xb7:
                return p + 5;
            case 0xab:
            case 0xb5:
                return p + 9;
            case 0xae: // Instant: seconds, nanos
                return skip(skip(p + 1));
            case 0xb9: // decimal: scale, unscaled
                return skip(JsonbBounds.intEnd(b, p + 1, b.length));
            default: // null, booleans, 0.0, 1.0
                return p + 1;
        }
    }

    private static boolean isArray(int u) {
        return u >= 0x94 && u <= 0xa4;
    }

    private static boolean isString(int u) {
        return u >= 0x49 && u <= 0x7a;
    }

    private static boolean isInt32(byte t) {
        return t >= -16 && t <= 0x48;
    }

    /** The plan for values declared as {@code type}, built once per type. */
    static Plan plan(Type type) {
        Plan plan = PLANS.get(type);
        if (plan == null) {
            Plan made = newPlan(type); // not in computeIfAbsent: planning a type plans its type arguments
            plan = PLANS.putIfAbsent(type, made);
            if (plan == null) {
                plan = made;
            }
        }
        return plan;
    }

    private static Plan newPlan(Type type) {
        if (type instanceof TypeVariable || type instanceof WildcardType) {
            return ANY;
        }
        if (type instanceof GenericArrayType) {
            return elements(plan(((GenericArrayType) type).getGenericComponentType()));
        }
        Class<?> raw = ValueTypes.rawClass(type);
        if (raw == null) {
            return ANY;
        }
        if (ValueTypes.integralMax(raw) != 0) {
            return new Plan(Plan.INTEGRAL, raw);
        }
        if (raw.isArray()) {
            return raw == byte[].class ? NONE : elements(plan(raw.getComponentType()));
        }
        if (Collection.class.isAssignableFrom(raw)) {
            return elements(plan(DeclaredTypes.typeArgument(type, 0)));
        }
        if (Map.class.isAssignableFrom(raw)) {
            Plan key = plan(DeclaredTypes.typeArgument(type, 0));
            Plan value = plan(DeclaredTypes.typeArgument(type, 1));
            if (key.kind == Plan.NONE && value.kind == Plan.NONE) {
                return NONE;
            }
            Plan map = new Plan(Plan.MAP, raw);
            map.key = key;
            map.element = value;
            return map;
        }
        if (raw == Object.class || raw.isInterface() || Modifier.isAbstract(raw.getModifiers())) {
            return raw.isPrimitive() ? NONE : ANY;
        }
        if (raw.isPrimitive() || raw.isEnum() || raw.getName().startsWith("java.")
                || raw.getName().startsWith("javax.")) {
            return NONE;
        }
        Plan bean = new Plan(Plan.BEAN, raw);
        bean.declared = type;
        return bean;
    }

    private static Plan elements(Plan element) {
        if (element.kind == Plan.NONE) {
            return NONE;
        }
        Plan plan = new Plan(Plan.ELEMENTS, null);
        plan.element = element;
        return plan;
    }

    /** How values of one declared type are walked. Immutable once built, but for a bean's fields, set once. */
    static final class Plan {
        static final int NONE = 0;
        static final int INTEGRAL = 1;
        static final int ANY = 2;
        static final int ELEMENTS = 3;
        static final int MAP = 4;
        static final int BEAN = 5;

        final int kind;
        /** The raw class: the integral type, the bean class, the map class. */
        final Class<?> type;
        final long max;
        Plan element;
        Plan key;
        Type declared;
        private volatile Fields fields;
        private volatile boolean built;

        Plan(int kind, Class<?> type) {
            this.kind = kind;
            this.type = type;
            this.max = kind == INTEGRAL ? ValueTypes.integralMax(type) : 0;
        }

        /** A bean's fields as fastjson2 reads them, or null when its reader is not a field-by-field one. */
        Fields fields() {
            if (!built) {
                ObjectReader<?> reader = JSONFactory.getDefaultObjectReaderProvider().getObjectReader(declared, true);
                fields = reader instanceof ObjectReaderAdapter ? new Fields((ObjectReaderAdapter<?>) reader) : null;
                built = true;
            }
            return fields;
        }

        /**
         * Field plans, found by name hash through fastjson2's own reader (so alternate names match as they do there);
         * field types are planned when the bean is first walked (so cycles are fine).
         */
        static final class Fields {
            final ObjectReaderAdapter<?> reader;
            final Map<FieldReader, Integer> indexes = new IdentityHashMap<>();
            final Plan[] plans;
            final String[] names;

            Fields(ObjectReaderAdapter<?> reader) {
                this.reader = reader;
                FieldReader[] readers = reader.getFieldReaders();
                plans = new Plan[readers.length];
                names = new String[readers.length];
                for (int i = 0; i < readers.length; i++) {
                    FieldReader r = readers[i];
                    plans[i] = plan(r.fieldType);
                    names[i] = (r.field != null ? r.field.getDeclaringClass().getName() : r.fieldClass.getName())
                            + "." + r.fieldName;
                    indexes.put(r, i);
                }
            }

            int index(long hash) {
                FieldReader r = reader.getFieldReader(hash);
                Integer i = r == null ? null : indexes.get(r);
                return i == null ? -1 : i;
            }
        }
    }
}
