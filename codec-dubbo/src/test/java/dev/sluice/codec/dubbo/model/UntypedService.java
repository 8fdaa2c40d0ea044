package dev.sluice.codec.dubbo.model;

import java.util.List;
import java.util.Map;

/** A contract whose values are untyped: what a real provider puts there is named only on the wire. */
public interface UntypedService {
    Object any(Object value);

    Map<String, Object> map(Map<String, Object> value);

    List<Object> list(List<Object> value);
}
