package dev.sluice.dubbo;

import dev.sluice.transport.Connection;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.Response;
import org.apache.dubbo.remoting.transport.AbstractChannel;
import org.apache.dubbo.remoting.utils.PayloadDropper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dubbo's view of one Sluice {@link Connection}: the {@code Channel} that Dubbo's handlers, codec and futures see.
 * One instance per connection, kept as a connection attribute ({@link #of}).
 *
 * <p><b>Sending.</b> {@link #send(Object, boolean)} runs on the caller's thread: the transport encodes the message
 * there with Dubbo's codec straight into a pooled buffer (through {@link ByteBufChannelBuffer}) and queues that
 * buffer on the connection's batching write queue; the event loop only writes it. When the write completes, on the
 * event loop, the endpoint's handler gets {@code sent(channel, message)}; when it fails, a two-way {@link Request}
 * is answered locally with a {@code BAD_REQUEST} (40) response (or {@code SERIALIZATION_ERROR} (25) when encoding
 * failed) fed to {@code received}, so the caller fails fast instead of waiting for its timeout. With
 * {@code sent=true} the caller waits for the write up to the URL's {@code timeout} (except on the event loop,
 * which must never block and whose own writes complete in order anyway); when that times out while the message is
 * still queued, it is withdrawn and never written, otherwise the error says the peer may have received it. With
 * {@code sent=false} (Dubbo's default) a two-way request that Dubbo's own future timed out before it was written is
 * withdrawn by the write queue instead ({@link OutboundMessage#beforeWrite}). A write that fails after the message
 * was handed to the socket is never reported as "not written".
 *
 * <p><b>Threads.</b> Thread-safe. Handler callbacks made from here run on the connection's event loop.
 */
final class SluiceChannel extends AbstractChannel {
    private static final Logger log = LoggerFactory.getLogger(SluiceChannel.class);
    private static final String KEY = SluiceChannel.class.getName();
    private static final String READONLY_KEY = org.apache.dubbo.remoting.Constants.CHANNEL_ATTRIBUTE_READONLY_KEY;

    private final Connection connection;
    /** The client this connection belongs to, or null on a server (see {@link #equals}). */
    private final SluiceDubboClient client;
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    /** The per-call timers of this connection, or null without {@code sluice.metrics}. */
    private final CallClock calls;
    private volatile InetSocketAddress remoteAddress;
    private volatile InetSocketAddress localAddress;

    private SluiceChannel(Connection connection, URL url, ChannelHandler endpoint, SluiceDubboClient client,
            CallMeters callMeters) {
        super(url, endpoint);
        this.connection = connection;
        this.client = client;
        this.calls = callMeters == null ? null : new CallClock(connection, callMeters, client != null, url);
    }

    /**
     * The Dubbo channel of {@code connection}, created on first use. Any thread; the event loop (connected, first
     * decode) and a connecting caller may race to create it, so creation is serialised on the connection.
     *
     * @param endpoint the server or client: it receives this channel's events and write outcomes
     * @param client the owning client, or null for a server's connection
     */
    static SluiceChannel of(Connection connection, URL url, ChannelHandler endpoint, SluiceDubboClient client) {
        return of(connection, url, endpoint, client, null);
    }

    /**
     * As {@link #of(Connection, URL, ChannelHandler, SluiceDubboClient)}, timing calls in {@code callMeters} (null:
     * no per-call timers) when this creates the channel.
     */
    static SluiceChannel of(Connection connection, URL url, ChannelHandler endpoint, SluiceDubboClient client,
            CallMeters callMeters) {
        Object existing = connection.attribute(KEY);
        if (existing != null) {
            return (SluiceChannel) existing;
        }
        synchronized (connection) {
            existing = connection.attribute(KEY);
            if (existing != null) {
                return (SluiceChannel) existing;
            }
            SluiceChannel created = new SluiceChannel(connection, url, endpoint, client, callMeters);
            connection.attribute(KEY, created);
            return created;
        }
    }

    /** The Dubbo channel of {@code connection}, or null when none was created. */
    static SluiceChannel existing(Connection connection) {
        return (SluiceChannel) connection.attribute(KEY);
    }

    Connection connection() {
        return connection;
    }

    /** This connection's per-call timers, or null without {@code sluice.metrics}. */
    CallClock calls() {
        return calls;
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        InetSocketAddress a = remoteAddress;
        if (a == null) {
            a = connection.remoteAddress();
            remoteAddress = a;
        }
        return a;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        InetSocketAddress a = localAddress;
        if (a == null) {
            a = connection.localAddress();
            localAddress = a;
        }
        return a;
    }

    @Override
    public boolean isConnected() {
        return !isClosed() && connection.isActive();
    }

    @Override
    public void send(Object message, boolean sent) throws RemotingException {
        super.send(message, sent); // throws when this channel was closed
        OutboundMessage out = new OutboundMessage(this, message, sent && !inEventLoop());
        CallClock calls = this.calls;
        if (calls != null) {
            calls.sending(message); // a client's two-way request: its clock starts
        }
        try {
            connection.send(out, out);
        } catch (ResponseReplacedException e) {
            return; // Dubbo's codec already sent the error response in its place (and that one stopped the clock)
        } catch (DubboCodecException e) {
            if (calls != null) {
                calls.sent(message, false);
            }
            throw new RemotingException(this, "Failed to send message " + PayloadDropper.getRequestWithoutData(message)
                    + " to " + getRemoteAddress() + ", cause: " + e.getCause().getMessage(), e.getCause());
        } catch (RuntimeException e) {
            if (calls != null) {
                calls.sent(message, false);
            }
            throw new RemotingException(this, "Failed to send message " + PayloadDropper.getRequestWithoutData(message)
                    + " to " + getRemoteAddress() + ", cause: " + e.getMessage(), e);
        }
        if (calls != null) {
            calls.sent(message, true); // a server's response: its request's clock stops
        }
        if (out.awaited()) {
            awaitWrite(out);
        }
    }

    private void awaitWrite(OutboundMessage out) throws RemotingException {
        int timeout = getUrl().getPositiveParameter(CommonConstants.TIMEOUT_KEY, CommonConstants.DEFAULT_TIMEOUT);
        boolean finished;
        try {
            finished = out.await(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RemotingException(this, "Interrupted while waiting for the write of "
                    + PayloadDropper.getRequestWithoutData(out.message) + " to " + getRemoteAddress()
                    + "; it is queued and may still be written");
        }
        if (!finished) {
            // "Not written" must stay true: take the message back from the queue, or say it may be on its way.
            throw new RemotingException(this, "Failed to send message "
                    + PayloadDropper.getRequestWithoutData(out.message) + " to " + getRemoteAddress() + " in timeout("
                    + timeout + "ms) limit: " + (out.withdraw()
                            ? "still queued, withdrawn, never written"
                            : "being written, the peer may have received it")
                    + " (" + connection.pendingBytes() + " bytes pending on the connection)");
        }
        Throwable failure = out.failure();
        if (failure != null) {
            throw new RemotingException(this, "Failed to send message "
                    + PayloadDropper.getRequestWithoutData(out.message) + " to " + getRemoteAddress()
                    + (out.maybeSent() ? ", the write failed after it was handed to the socket (the peer may have"
                            + " received it), cause: " : ", not written, cause: ")
                    + failure.getMessage(), failure);
        }
    }

    private boolean inEventLoop() {
        return connection.inEventLoop();
    }

    /** Event loop: {@code message} reached the socket. */
    void written(Object message) {
        try {
            getChannelHandler().sent(this, message);
        } catch (Throwable t) {
            log.warn("Dubbo handler failed on sent for {}", this, t);
        }
    }

    /**
     * Event loop: {@code message} was not written ({@code maybeSent} false: it failed while queued), or its write
     * failed after it was handed to the socket ({@code maybeSent} true). Fails a waiting two-way request at once.
     */
    void writeFailed(Object message, Throwable cause, boolean maybeSent) {
        if (!(message instanceof Request)) {
            log.debug("Message not written to {}: {}", getRemoteAddress(), cause.toString());
            return;
        }
        Request request = (Request) message;
        if (!request.isTwoWay() || request.isEvent()) {
            return; // nobody waits for an answer (heartbeats, readonly events, one-way calls)
        }
        Response response = new Response(request.getId(), request.getVersion());
        response.setStatus(cause instanceof DubboCodecException ? Response.SERIALIZATION_ERROR : Response.BAD_REQUEST);
        response.setErrorMessage((maybeSent
                ? "The write of the request to " + getRemoteAddress() + " failed after it was handed to the socket;"
                        + " the peer may have received it: "
                : "Request was not written to " + getRemoteAddress() + ": ") + cause);
        try {
            getChannelHandler().received(this, response);
        } catch (Throwable t) {
            log.warn("Dubbo handler failed on the failure response for request {} on {}", request.getId(), this, t);
        }
    }

    @Override
    public void close() {
        super.close();
        attributes.clear();
        connection.close(); // after whatever is already queued has been written
    }

    /**
     * Also true for Dubbo's readonly key while the connection is stalled ({@link Connection#isStalled()}): that is
     * what {@code DubboInvoker.isAvailable()} reads, so the cluster picks other providers. The stored attribute
     * (set by a provider's readonly event) is left alone, so a read that clears the stall cannot clear it.
     */
    @Override
    public boolean hasAttribute(String key) {
        return attributes.containsKey(key) || (connection.isStalled() && READONLY_KEY.equals(key));
    }

    @Override
    public Object getAttribute(String key) {
        Object value = attributes.get(key);
        if (value == null && connection.isStalled() && READONLY_KEY.equals(key)) {
            return Boolean.TRUE;
        }
        return value;
    }

    @Override
    public void setAttribute(String key, Object value) {
        if (value == null) {
            attributes.remove(key);
        } else {
            attributes.put(key, value);
        }
    }

    @Override
    public void removeAttribute(String key) {
        attributes.remove(key);
    }

    /**
     * Identity, plus one asymmetric case Dubbo relies on: a client's connection channel equals its client while it
     * is the client's latest connection. {@code DefaultFuture} records the <em>client</em> as the channel of each
     * request, and {@code DefaultFuture.closeChannel(channel)}, called when this channel disconnects, fails the
     * requests whose recorded channel {@code equals} it; Dubbo's netty4 {@code NettyChannel} has the same rule. Once a
     * newer connection exists its requests are left alone (they time out, as with Dubbo's own transport).
     */
    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        return client != null && obj == client && client.latestChannel() == this;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    @Override
    public String toString() {
        return "SluiceChannel[" + connection + "]";
    }
}
