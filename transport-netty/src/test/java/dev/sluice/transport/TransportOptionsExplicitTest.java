package dev.sluice.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TransportOptions#isExplicit}: every builder method marks its own {@link TransportOptions.Setting} and no
 * other, a setting at its default is not explicit, and {@link TransportOptions#toBuilder()} keeps what was explicit.
 * Endpoint builders rely on it to let an explicit value beat a default whichever knob set it.
 */
@Timeout(10)
class TransportOptionsExplicitTest {
    private static List<Method> setters() {
        List<Method> setters = new ArrayList<>();
        for (Method m : TransportOptions.Builder.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && m.getReturnType() == TransportOptions.Builder.class) {
                setters.add(m);
            }
        }
        return setters;
    }

    @Test
    void everyBuilderMethodHasItsSettingAndEverySettingItsMethod() {
        Set<String> methods = new TreeSet<>();
        setters().forEach(m -> methods.add(m.getName()));
        Set<String> settings = new TreeSet<>();
        for (TransportOptions.Setting s : TransportOptions.Setting.values()) {
            settings.add(s.method());
        }
        assertEquals(methods, settings);
    }

    @Test
    void eachBuilderMethodMarksItsOwnSettingOnlyAndToBuilderKeepsIt() throws Exception {
        TransportOptions defaults = TransportOptions.defaults();
        for (TransportOptions.Setting s : TransportOptions.Setting.values()) {
            assertFalse(defaults.isExplicit(s), s + " is explicit in the defaults");
        }
        for (Method m : setters()) {
            TransportOptions.Builder b = TransportOptions.builder();
            m.invoke(b, validArguments(m));
            TransportOptions options = b.build();
            Set<TransportOptions.Setting> marked = EnumSet.noneOf(TransportOptions.Setting.class);
            for (TransportOptions.Setting s : TransportOptions.Setting.values()) {
                if (options.isExplicit(s)) {
                    marked.add(s);
                }
            }
            assertEquals(1, marked.size(), m.getName() + " marked " + marked);
            TransportOptions.Setting setting = marked.iterator().next();
            assertEquals(m.getName(), setting.method());
            assertTrue(options.toBuilder().build().isExplicit(setting), "toBuilder keeps " + setting);
            assertTrue(options.toBuilder().connectTimeout(Duration.ofSeconds(1)).build().isExplicit(setting));
        }
    }

    private static Object[] validArguments(Method m) {
        Class<?>[] types = m.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            if (t == int.class) {
                args[i] = 1;
            } else if (t == long.class) {
                args[i] = 1L;
            } else if (t == boolean.class) {
                args[i] = false;
            } else if (t == Duration.class) {
                args[i] = Duration.ofMillis(1);
            } else if (t.isEnum()) {
                args[i] = t.getEnumConstants()[0];
            } else {
                args[i] = null; // the observer: null removes it
            }
        }
        return args;
    }
}
