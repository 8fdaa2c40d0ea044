package dev.sluice.dubbo;

import dev.sluice.transport.Connection;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.internal.LogLimiter;
import org.apache.dubbo.remoting.ChannelHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a Sluice connection's events to a Dubbo endpoint (the server's or client's {@link ChannelHandler}), on
 * the {@link SluiceChannel} Dubbo sees for that connection. Dubbo's handlers must not break the event loop: what
 * they throw is logged with the event and the channel, and the loop goes on. Subclasses add what each endpoint does
 * besides ({@link #opened}, {@link #closed}) and its idle policy.
 *
 * <p>Runs on the connection's event loop, as every {@link TransportHandler}.
 */
abstract class DubboEndpointHandler implements TransportHandler {
    private static final Logger log = LoggerFactory.getLogger(DubboEndpointHandler.class);
    /** Dubbo's handlers fail on what a peer sent (docs/reliability.md A9b): a line a second of each. */
    private static final LogLimiter RECEIVED_FAILED = new LogLimiter();
    private static final LogLimiter CAUGHT_FAILED = new LogLimiter();

    private final ChannelHandler endpoint;

    DubboEndpointHandler(ChannelHandler endpoint) {
        this.endpoint = endpoint;
    }

    /** Dubbo's channel for {@code connection}, created on first use. */
    abstract SluiceChannel channel(Connection connection);

    /** Before Dubbo hears of a new connection. */
    void opened(SluiceChannel channel) {
    }

    /** Before Dubbo hears that a connection closed. */
    void closed(SluiceChannel channel) {
    }

    @Override
    public final void connected(Connection connection) {
        SluiceChannel ch = channel(connection);
        opened(ch);
        try {
            endpoint.connected(ch);
        } catch (Throwable t) {
            log.warn("Dubbo handler failed on connected for {}", ch, t);
        }
    }

    @Override
    public final void received(Connection connection, Object message) {
        SluiceChannel ch = channel(connection);
        CallClock calls = ch.calls();
        if (calls != null) {
            calls.received(message); // a server's two-way request: its clock starts
        }
        try {
            endpoint.received(ch, message);
        } catch (Throwable t) {
            RECEIVED_FAILED.warn(log, "Dubbo handler failed on received for {}", ch, t);
        }
    }

    @Override
    public final void caught(Connection connection, Throwable cause) {
        SluiceChannel ch = channel(connection);
        try {
            endpoint.caught(ch, cause);
        } catch (Throwable t) {
            CAUGHT_FAILED.warn(log, "Dubbo handler failed on caught for {}", ch, t);
        }
    }

    @Override
    public final void disconnected(Connection connection, Throwable cause) {
        SluiceChannel ch = channel(connection);
        closed(ch);
        CallClock calls = ch.calls();
        if (calls != null) {
            calls.closed(); // before Dubbo fails the calls of this channel
        }
        try {
            endpoint.disconnected(ch);
        } catch (Throwable t) {
            log.warn("Dubbo handler failed on disconnected for {}", ch, t);
        }
    }
}
