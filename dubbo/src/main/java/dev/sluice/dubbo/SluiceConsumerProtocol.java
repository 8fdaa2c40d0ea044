package dev.sluice.dubbo;

import java.util.List;
import java.util.Locale;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.extension.Wrapper;
import org.apache.dubbo.rpc.Exporter;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Protocol;
import org.apache.dubbo.rpc.ProtocolServer;
import org.apache.dubbo.rpc.RpcException;

/**
 * The consumer lever: a wrapper of Dubbo's {@code dubbo} {@link Protocol} that answers {@link #refer} of a reference
 * configured with {@code sluice.consumer=fast} with a {@link FastConsumerInvoker}, which sends its calls through
 * Sluice's client path (a pending-call table with one timeout sweep, the caller completing its own call) on the same
 * {@code dubbo} wire, instead of Dubbo's exchange layer ({@code DefaultFuture}, a {@code HashedWheelTimer} entry and a
 * {@code ThreadlessExecutor} hand-off per call). Everything above the invoker stays Dubbo's: registries and
 * directories, clusters, load balancing, routers and filters. Every other reference, and every export, goes to Dubbo's
 * own protocol unchanged, so providers need not change what they register and a fleet can switch consumer by consumer.
 *
 * <p>How Dubbo applies it: a class listed under {@code META-INF/dubbo/org.apache.dubbo.rpc.Protocol} with a
 * constructor taking a {@code Protocol} is a wrapper; {@code @Wrapper(matches = "dubbo")} limits it to the
 * {@code dubbo} extension, and its order, the highest of the wrappers, puts it innermost, right around
 * {@code DubboProtocol}: Dubbo's filter, listener and serialization-check wrappers wrap the invoker it returns as they
 * wrap {@code DubboProtocol}'s.
 *
 * <p>{@code sluice.consumer} ({@link #KEY}): {@code fast} selects the lever; absent, blank or {@code dubbo} (the
 * default) keeps Dubbo's own path; anything else fails {@code refer} naming the value. Set it where Dubbo's consumer
 * keys go (the reference's or the consumer config's {@code parameters}).
 *
 * <p>Threads: Dubbo calls {@link #refer} and {@link #destroy} from its configuration and registry threads; each is
 * thread-safe. One instance per Dubbo framework model, as the protocol it wraps.
 */
@Wrapper(matches = "dubbo", order = Integer.MAX_VALUE - 1)
public final class SluiceConsumerProtocol implements Protocol {
    /** The URL key that selects the lever. */
    static final String KEY = "sluice.consumer";
    /** Its value that selects the lever. */
    static final String FAST = "fast";

    private final Protocol protocol;
    private final FastConsumerClients clients = new FastConsumerClients();

    public SluiceConsumerProtocol(Protocol protocol) {
        this.protocol = protocol;
    }

    /**
     * Whether {@code url} asks for the lever.
     *
     * @throws IllegalArgumentException for a value other than {@code fast}, {@code dubbo} or blank
     */
    static boolean selected(URL url) {
        String v = url.getParameter(KEY);
        if (v == null || v.isBlank()) {
            return false;
        }
        String value = v.trim().toLowerCase(Locale.ROOT);
        if (FAST.equals(value)) {
            return true;
        }
        if ("dubbo".equals(value)) {
            return false;
        }
        throw new IllegalArgumentException(KEY + "=" + v + " is not one of " + FAST + " (calls through Sluice's"
                + " client path) or dubbo (Dubbo's own exchange layer, the default)");
    }

    @Override
    public int getDefaultPort() {
        return protocol.getDefaultPort();
    }

    @Override
    public <T> Exporter<T> export(Invoker<T> invoker) throws RpcException {
        return protocol.export(invoker);
    }

    @Override
    public <T> Invoker<T> refer(Class<T> type, URL url) throws RpcException {
        boolean fast;
        try {
            fast = selected(url);
        } catch (IllegalArgumentException e) {
            throw new RpcException(e.getMessage(), e);
        }
        if (!fast) {
            return protocol.refer(type, url);
        }
        return new FastConsumerInvoker<>(type, url, clients);
    }

    @Override
    public void destroy() {
        try {
            clients.closeAll();
        } finally {
            protocol.destroy();
        }
    }

    @Override
    public List<ProtocolServer> getServers() {
        return protocol.getServers();
    }
}
