package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.registry.integration.ServiceURLCustomizer;
import org.apache.dubbo.rpc.cluster.support.ClusterUtils;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a provider registers when it runs {@code server=sluice}: every {@link ServiceURLCustomizer} Dubbo finds on the
 * class path applied in Dubbo's order, as {@code RegistryProtocol} does before it registers (so this also proves the
 * SPI file), and the result merged as a consumer merges it ({@code ClusterUtils.mergeUrl}). The mixed fleet itself,
 * through ZooKeeper and consumers with and without the jar, is {@code ClusterMixedFleetTest}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SluiceRegistryUrlCustomizerTest {
    private static final String PROVIDER = "dubbo://10.0.0.1:20880/demo.Svc?interface=demo.Svc&side=provider"
            + "&timeout=5000";

    private static URL registered(String query) {
        return withDubbo(application -> {
            URL url = URL.valueOf(PROVIDER + query);
            for (ServiceURLCustomizer c : application.getExtensionLoader(ServiceURLCustomizer.class)
                    .getSupportedExtensionInstances()) {
                url = c.customize(url, application);
            }
            return url;
        });
    }

    /** The URL a consumer with {@code local} parameters makes of the registered {@code url}. */
    private static URL merged(URL url, Map<String, String> local) {
        return withDubbo(application -> {
            ClusterUtils merge = new ClusterUtils();
            merge.setApplicationModel(application);
            return merge.mergeUrl(url, new HashMap<>(local));
        });
    }

    private static URL withDubbo(Function<ApplicationModel, URL> body) {
        FrameworkModel framework = new FrameworkModel();
        try {
            return body.apply(framework.newApplication());
        } finally {
            framework.destroy();
        }
    }

    @Test
    void sluiceServerIsNotRegisteredSoConsumersKeepTheirOwnClient() {
        URL url = registered("&server=sluice");
        assertNull(url.getParameter("server"), url.toFullString());
        assertNull(url.getParameter("client"), url.toFullString());
        assertEquals("5000", url.getParameter("timeout"), "other parameters are registered as before");
        // A consumer that sets no client: DubboProtocol.initClient picks client, else server, else Dubbo's default.
        URL merged = merged(url, Map.of());
        assertNull(merged.getParameter("client", merged.getParameter("server")), merged.toFullString());
    }

    @Test
    void sluiceClientSetOnTheProviderIsNotRegisteredEither() {
        URL url = registered("&server=sluice&client=sluice");
        assertNull(url.getParameter("server"), url.toFullString());
        assertNull(url.getParameter("client"), url.toFullString());
    }

    @Test
    void otherTransportersAreRegisteredAsDubboRegistersThem() {
        URL url = registered("&server=netty4&client=netty4");
        assertEquals("netty4", url.getParameter("server"));
        assertEquals("netty4", url.getParameter("client"));
    }

    @Test
    void advertiseClientRegistersServerAndClientSluice() {
        URL url = registered("&server=sluice&" + SluiceRegistryUrlCustomizer.ADVERTISE_CLIENT + "=true");
        assertEquals("sluice", url.getParameter("server"));
        assertEquals("sluice", url.getParameter("client"));
        URL merged = merged(url, Map.of());
        assertEquals("sluice", merged.getParameter("client"), "a consumer that sets no client connects with Sluice");
    }

    @Test
    void advertiseClientKeepsAClientTheProviderNamed() {
        URL url = registered("&server=sluice&client=netty4&" + SluiceRegistryUrlCustomizer.ADVERTISE_CLIENT
                + "=true");
        assertEquals("sluice", url.getParameter("server"));
        assertEquals("netty4", url.getParameter("client"));
    }

    @Test
    void aConsumersOwnClientWinsOverTheRegisteredOne() {
        URL url = registered("&server=sluice&" + SluiceRegistryUrlCustomizer.ADVERTISE_CLIENT + "=true");
        assertEquals("netty4", merged(url, Map.of("client", "netty4")).getParameter("client"));
    }
}
