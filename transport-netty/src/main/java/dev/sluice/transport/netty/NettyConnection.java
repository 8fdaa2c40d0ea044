package dev.sluice.transport.netty;

import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.Internal;
import dev.sluice.transport.TransportObserver;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.codec.FrameEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link Connection} over one Netty channel. {@link #send} runs on the caller's thread: it allocates a pooled
 * buffer, lets the protocol's encoder fill it, and hands it to the channel's {@link WriteQueue}, which writes on the
 * channel's event loop. A graceful {@link #close()} always ends within its bound, even when the peer stopped
 * reading. Thread-safe.
 */
@Internal
public final class NettyConnection implements Connection {
    static final AttributeKey<NettyConnection> KEY = AttributeKey.valueOf("sluice.connection");

    private final Channel channel;
    private final FrameEncoder encoder;
    private final WriteQueue writeQueue;
    private final ConcurrentMap<String, Object> attributes = new ConcurrentHashMap<>(4);
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
    private final Duration closeTimeout;
    /** The options' observer, guarded so that nothing it throws strands a frame or a close; null when none. */
    private final TransportObserver observer;
    /** Written by {@link StallDetector} on the event loop; read by any thread. */
    private volatile boolean stalled;
    /** The observer was told this connection is stalled and not yet that it is not. Event loop only. */
    private boolean stallReported;

    NettyConnection(Channel channel, FrameEncoder encoder, TransportOptions options) {
        this.channel = channel;
        this.encoder = encoder;
        // Only a server's connection (an accepted channel has a parent) pauses reading over its cap: its outbound
        // bytes answer the peer's requests. A client must keep reading the answers to its own.
        this.writeQueue = new WriteQueue(channel, options.drainMaxMessages(), options.drainMaxBytes(),
                options.pendingBytesCap(), options.batchWrite(), channel.parent() != null);
        this.observer = GuardedObserver.of(options.observer());
        writeQueue.observer(observer);
        this.closeTimeout = options.closeTimeout();
        channel.closeFuture().addListener(f -> closeFuture.complete(null));
    }

    /** The connection bound to {@code channel}, or null. */
    public static NettyConnection of(Channel channel) {
        return channel.attr(KEY).get();
    }

    /**
     * Encodes {@code message} into a pooled buffer on this thread and queues it. A {@link ByteBuf} message is
     * taken as an already encoded frame (ownership passes to the connection).
     */
    @Override
    public void send(Object message, WriteListener listener) {
        if (message instanceof ByteBuf) {
            writeQueue.enqueue((ByteBuf) message, listener);
            return;
        }
        if (!channel.isActive()) {
            throw new ConnectionClosedException("Not sent: connection to " + channel.remoteAddress()
                    + " is closed; retry on another connection");
        }
        ByteBuf buf = channel.alloc().ioBuffer(encoder.sizeHint(message));
        try {
            encoder.encode(message, buf);
        } catch (Throwable t) {
            buf.release();
            throw t;
        }
        writeQueue.enqueue(buf, listener);
    }

    @Override
    public boolean isActive() {
        return channel.isActive();
    }

    @Override
    public boolean isStalled() {
        return stalled;
    }

    /** Event loop ({@link StallDetector}); the observer hears of each change while the channel is open. */
    void stalled(boolean value) {
        stalled = value;
        reportStall(value && channel.isActive());
    }

    /** Event loop, as the channel closes: a stalled connection stops counting as one for the observer. */
    void closedForObserver() {
        reportStall(false);
    }

    private void reportStall(boolean value) {
        if (observer != null && value != stallReported) {
            stallReported = value;
            observer.stallChanged(value);
        }
    }

    @Override
    public long pendingBytes() {
        return writeQueue.pendingBytes();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) channel.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public Object attribute(String key) {
        return attributes.get(key);
    }

    @Override
    public Object attribute(String key, Object value) {
        return value == null ? attributes.remove(key) : attributes.put(key, value);
    }

    /**
     * Closes once everything queued before this call has been written to the socket, or forcibly after
     * {@link TransportOptions#closeTimeout()} (a peer that stopped reading); see {@link #close(Duration)}.
     */
    @Override
    public CompletableFuture<Void> close() {
        return close(closeTimeout);
    }

    /**
     * Any thread. Refuses new sends at once; the close itself runs on the event loop behind what was queued, and
     * waits for the socket to take all of it, at most {@code flushTimeout}: then the channel is closed forcibly,
     * what is still queued fails "not sent" and what was handed to the socket fails "outcome unknown".
     */
    @Override
    public CompletableFuture<Void> close(Duration flushTimeout) {
        if (flushTimeout.isNegative() || flushTimeout.isZero()) {
            return closeNow();
        }
        if (channel.isActive()) {
            writeQueue.enqueueClose(flushTimeout);
        } else {
            channel.close();
        }
        return closeFuture;
    }

    /** Closes at once, failing whatever is still queued. */
    public CompletableFuture<Void> closeNow() {
        channel.close();
        return closeFuture;
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return closeFuture;
    }

    @Override
    public boolean inEventLoop() {
        return channel.eventLoop().inEventLoop();
    }

    @Override
    public java.util.concurrent.Executor executor() {
        return channel.eventLoop();
    }

    @Override
    public void answerDue() {
        assert inEventLoop();
        LoopSpin.expect();
    }

    public Channel channel() {
        return channel;
    }

    WriteQueue writeQueue() {
        return writeQueue;
    }

    /** The guarded observer ({@link GuardedObserver}), or null. */
    TransportObserver observer() {
        return observer;
    }

    @Override
    public String toString() {
        return "NettyConnection[" + channel.localAddress() + " -> " + channel.remoteAddress()
                + (channel.isActive() ? "" : ", closed") + (stalled ? ", stalled" : "") + "]";
    }
}
