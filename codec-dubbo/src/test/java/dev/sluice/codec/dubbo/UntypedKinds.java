package dev.sluice.codec.dubbo;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Each kind of value a real Dubbo peer may hold, and so write, where a contract says {@code Object},
 * {@code Map<String, Object>} or {@code List<Object>}: fastjson2's {@code JSONObject} / {@code JSONArray} (which a
 * Dubbo 3.3 provider makes itself when it reads untyped arguments or parses JSON), JDK collection classes that both
 * serializations name on the wire, and nested arrays. One list for the codec's unit test ({@code UntypedValuesTest},
 * bytes written as the peer writes them) and the interop scenario against a real Dubbo provider
 * ({@code UntypedValuesScenario} in integration-tests). Any thread.
 */
public final class UntypedKinds {
    /** JSON as a provider might parse it: nested objects and arrays, a decimal, a boolean, nulls, an empty array. */
    public static final String JSON_TEXT = "{\"id\":7,\"tags\":[\"a\",\"b\",{\"deep\":[1,2.5,null]}],"
            + "\"owner\":{\"name\":\"n\",\"roles\":[]},\"ok\":true,\"none\":null}";

    private UntypedKinds() {
    }

    /** What a provider that read {@code {"k":1,"m":{"x":"y"},"l":[1,"s"]}} untyped holds (fastjson2 made it). */
    public static JSONObject jsonObject() {
        JSONObject inner = new JSONObject();
        inner.put("x", "y");
        JSONArray list = new JSONArray();
        list.add(1);
        list.add("s");
        JSONObject o = new JSONObject();
        o.put("k", 1);
        o.put("m", inner);
        o.put("l", list);
        return o;
    }

    /** A JSONArray holding a number, a string, an empty JSONArray, a JSONObject and a null. */
    public static JSONArray jsonArray() {
        JSONObject o = new JSONObject();
        o.put("a", new JSONArray(List.of(true)));
        JSONArray a = new JSONArray();
        a.add(1);
        a.add("s");
        a.add(new JSONArray());
        a.add(o);
        a.add(null);
        return a;
    }

    /** Every kind by name, in a fixed order; built anew per call, so a caller may change what it gets. */
    public static Map<String, Object> values() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("JSONObject", jsonObject());
        v.put("JSONArray", jsonArray());
        v.put("parsed JSONObject", JSON.parseObject(JSON_TEXT));
        v.put("parsed JSONArray", JSON.parseArray("[1,\"s\",[],{\"a\":[true]}]"));
        v.put("empty JSONObject", new JSONObject());
        v.put("LinkedHashMap", new LinkedHashMap<>(Map.of("a", 1)));
        v.put("TreeMap", new TreeMap<>(Map.of("b", "c", "a", 2L)));
        v.put("HashMap", new HashMap<>(Map.of("h", 1.5d)));
        v.put("Arrays$ArrayList", Arrays.asList(1, "two", null));
        v.put("ArrayList", new ArrayList<>(List.of(1, 2)));
        v.put("LinkedList", new LinkedList<>(List.of("l")));
        v.put("unmodifiableList", Collections.unmodifiableList(new ArrayList<>(List.of(1, 2))));
        v.put("unmodifiableList(LinkedList)", Collections.unmodifiableList(new LinkedList<>(List.of(3))));
        v.put("unmodifiableCollection", Collections.unmodifiableCollection(new ArrayList<>(List.of("c"))));
        v.put("unmodifiableSet", Collections.unmodifiableSet(new HashSet<>(Set.of("u"))));
        v.put("unmodifiableSortedSet", Collections.unmodifiableSortedSet(new TreeSet<>(Set.of(2, 1))));
        v.put("unmodifiableMap", Collections.unmodifiableMap(new HashMap<>(Map.of("u", 1))));
        v.put("unmodifiableSortedMap", Collections.unmodifiableSortedMap(new TreeMap<>(Map.of("s", 1))));
        v.put("singletonList", Collections.singletonList("one"));
        v.put("singleton", Collections.singleton(7));
        v.put("singletonMap", Collections.singletonMap("k", "v"));
        v.put("emptyList", Collections.emptyList());
        v.put("emptySet", Collections.emptySet());
        v.put("emptyMap", Collections.emptyMap());
        v.put("HashSet", new HashSet<>(Set.of("h1", "h2")));
        v.put("LinkedHashSet", new LinkedHashSet<>(List.of("a", "b")));
        v.put("TreeSet", new TreeSet<>(Set.of(3, 1)));
        v.put("List.of", List.of(1, 2, 3));
        v.put("Map.of", Map.of("m", "n"));
        v.put("Object[] of arrays", new Object[] {new Object[] {1, "a"}, new int[] {1, 2}, new String[] {"s"}});
        v.put("int[][]", new int[][] {{1}, {2, 3}});
        v.put("String[][]", new String[][] {{"a"}, {}});
        return v;
    }
}
