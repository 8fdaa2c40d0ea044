package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.Protocol;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.protocol.dubbo.DubboProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How Dubbo applies the consumer lever's {@link SluiceConsumerProtocol}: found through the SPI file, around the
 * {@code dubbo} protocol only, and innermost (right around {@code DubboProtocol}, so Dubbo's filter and listener
 * wrappers wrap the invoker it returns); and which values of {@code sluice.consumer} select it. The calls through it,
 * against real Dubbo providers, are the conformance suite's lever pairings.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SluiceConsumerProtocolTest {

    /** The classes of the protocol extension {@code name}, from the outermost wrapper in. */
    private static List<Class<?>> chain(String name) throws IllegalAccessException {
        FrameworkModel framework = new FrameworkModel();
        try {
            List<Class<?>> chain = new ArrayList<>();
            Object p = framework.getExtensionLoader(Protocol.class).getExtension(name);
            while (p != null) {
                chain.add(p.getClass());
                Object inner = null;
                for (Field f : p.getClass().getDeclaredFields()) {
                    if (f.getType() == Protocol.class) {
                        f.setAccessible(true);
                        inner = f.get(p);
                        break;
                    }
                }
                p = inner;
            }
            return chain;
        } finally {
            framework.destroy();
        }
    }

    @Test
    void dubbosProtocolIsWrappedInnermostAndNoOtherProtocolIs() throws Exception {
        List<Class<?>> dubbo = chain("dubbo");
        int n = dubbo.size();
        assertTrue(n >= 3, "Dubbo's own wrappers around the dubbo protocol: " + dubbo);
        assertEquals(DubboProtocol.class, dubbo.get(n - 1), dubbo.toString());
        assertEquals(SluiceConsumerProtocol.class, dubbo.get(n - 2), "the lever is not right around DubboProtocol: "
                + dubbo);
        List<Class<?>> injvm = chain("injvm");
        assertFalse(injvm.contains(SluiceConsumerProtocol.class), "the lever wraps the injvm protocol: " + injvm);
    }

    @Test
    void onlyFastSelectsTheLeverAndAnUnknownValueIsNamed() {
        String base = "dubbo://10.0.0.1:20880/demo.Svc?interface=demo.Svc";
        assertTrue(SluiceConsumerProtocol.selected(URL.valueOf(base + "&sluice.consumer=fast")));
        assertTrue(SluiceConsumerProtocol.selected(URL.valueOf(base + "&sluice.consumer=FAST")));
        assertFalse(SluiceConsumerProtocol.selected(URL.valueOf(base)));
        assertFalse(SluiceConsumerProtocol.selected(URL.valueOf(base + "&sluice.consumer=dubbo")));
        assertFalse(SluiceConsumerProtocol.selected(URL.valueOf(base + "&sluice.consumer=")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SluiceConsumerProtocol.selected(URL.valueOf(base + "&sluice.consumer=quick")));
        assertTrue(e.getMessage().contains("sluice.consumer=quick") && e.getMessage().contains("fast"),
                e.getMessage());
    }

    @Test
    void referencesWithDifferentClientSettingsOrOwnConnectionsGetClientsOfTheirOwn() {
        String base = "dubbo://10.0.0.1:20880/demo.Svc?interface=demo.Svc";
        URL plain = URL.valueOf(base);
        assertEquals(FastConsumerClients.key(plain), FastConsumerClients.key(URL.valueOf(base + "&timeout=5")));
        assertFalse(FastConsumerClients.key(plain).equals(FastConsumerClients.key(URL.valueOf(base
                + "&heartbeat=300"))));
        URL own = URL.valueOf(base + "&connections=1");
        assertFalse(FastConsumerClients.key(own).equals(FastConsumerClients.key(own)));
    }
}
