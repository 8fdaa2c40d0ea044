package dev.sluice.dubbo;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.registry.integration.ServiceURLCustomizer;
import org.apache.dubbo.remoting.Constants;
import org.apache.dubbo.rpc.model.ApplicationModel;

/**
 * Keeps a provider's switch to Sluice out of what it registers, so that consumers without the Sluice jar keep
 * calling it. Registered in {@code META-INF/dubbo/org.apache.dubbo.registry.integration.ServiceURLCustomizer}; Dubbo's
 * {@code RegistryProtocol} runs every such customizer on the provider URL it is about to register (interface-level
 * registration), after Dubbo's own one.
 *
 * <p>Why: a Dubbo consumer merges the provider's registered parameters under its own and picks its client transporter
 * from {@code client}, falling back to {@code server} ({@code DubboProtocol.initClient}); a provider registered with
 * {@code server=sluice} therefore makes every consumer that sets no {@code client} and lacks the {@code sluice}
 * extension (no Sluice jar, or Dubbo 2.7) refuse it: "Unsupported client type: sluice". The bytes on the wire are
 * Dubbo's {@code dubbo} protocol whatever either side runs, so the provider's transporter is no business of the
 * consumer's.
 *
 * <p>What: unless the provider URL says {@value #ADVERTISE_CLIENT}{@code =true}, {@code server=sluice} and
 * {@code client=sluice} are removed from the registered URL; a consumer then connects with its own {@code client}
 * (with no {@code client} set: its {@code transporter}, else Dubbo's default, netty4). Any other value of either key
 * is registered as it is. With {@value #ADVERTISE_CLIENT}{@code =true} (on the protocol's or service's
 * {@code parameters}) the URL keeps {@code server=sluice} and gains {@code client=sluice} unless it names a client:
 * consumers that set no {@code client} then connect with Sluice, and all of them need the jar.
 *
 * <p>Stateless; Dubbo calls it on the thread that exports or re-exports a service.
 */
public final class SluiceRegistryUrlCustomizer implements ServiceURLCustomizer {
    /** Provider URL key: {@code true} registers {@code server=sluice} and {@code client=sluice} (default false). */
    public static final String ADVERTISE_CLIENT = "sluice.advertise-client";

    @Override
    public URL customize(URL serviceUrl, ApplicationModel applicationModel) {
        boolean sluiceServer = SluiceTransporter.NAME.equals(serviceUrl.getParameter(Constants.SERVER_KEY));
        boolean sluiceClient = SluiceTransporter.NAME.equals(serviceUrl.getParameter(Constants.CLIENT_KEY));
        if (!sluiceServer && !sluiceClient) {
            return serviceUrl;
        }
        if (serviceUrl.getParameter(ADVERTISE_CLIENT, false)) {
            return serviceUrl.addParameterIfAbsent(Constants.CLIENT_KEY, SluiceTransporter.NAME);
        }
        URL registered = serviceUrl;
        if (sluiceServer) {
            registered = registered.removeParameter(Constants.SERVER_KEY);
        }
        if (sluiceClient) {
            registered = registered.removeParameter(Constants.CLIENT_KEY);
        }
        return registered;
    }
}
