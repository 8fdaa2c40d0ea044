package dev.sluice.dubbo;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.Client;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.RemotingServer;
import org.apache.dubbo.remoting.Transporter;

/**
 * The {@code sluice} {@link Transporter} extension: Dubbo's {@code dubbo} protocol over Sluice's Netty transport
 * (caller-thread encoding into pooled buffers, one bounded batching write queue per connection, no re-copy on the
 * event loop). Registered in {@code META-INF/dubbo/org.apache.dubbo.remoting.Transporter}; select it with
 * {@code dubbo.protocol.server=sluice} (provider) and {@code dubbo.consumer.client=sluice} (consumer), or
 * {@code transporter=sluice} for both. Registries, routing and load balancing are untouched.
 *
 * <p>Stateless and thread-safe; Dubbo's {@code ExtensionLoader} creates one instance. {@link #bind} and
 * {@link #connect} block on the caller's thread until bound or connected (or failed).
 */
public final class SluiceTransporter implements Transporter {
    /** The extension name. */
    public static final String NAME = "sluice";

    @Override
    public RemotingServer bind(URL url, ChannelHandler handler) throws RemotingException {
        return new SluiceDubboServer(url, handler);
    }

    @Override
    public Client connect(URL url, ChannelHandler handler) throws RemotingException {
        return new SluiceDubboClient(url, handler);
    }
}
