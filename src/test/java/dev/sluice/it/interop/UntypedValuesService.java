package dev.sluice.it.interop;

import java.util.List;
import java.util.Map;

/**
 * A contract whose values are untyped, served by a real Dubbo provider in {@link UntypedValuesScenario}: what the
 * provider sends back is named only on the wire (fastjson2's {@code JSONObject}/{@code JSONArray}, JDK collection
 * classes, arrays).
 */
public interface UntypedValuesService {
    /** Returns the argument as the provider read it. */
    Map<String, Object> echoMap(Map<String, Object> value);

    /** Returns the argument as the provider read it. */
    List<Object> echoList(List<Object> value);

    /** Returns the argument as the provider read it. */
    Object echo(Object value);

    /** fastjson2's {@code JSON.parseObject(json)} on the provider: a JSONObject holding JSONObjects and JSONArrays. */
    Map<String, Object> parse(String json);

    /** One value of every kind the provider builds ({@link UntypedValuesScenario#kinds()}), by name. */
    Map<String, Object> kinds();

    /** The value of kind {@code name}, as an {@code Object} result. */
    Object kind(String name);
}
