package dev.sluice.transport.netty;

import dev.sluice.transport.AllocatorKind;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportObserver;
import dev.sluice.transport.TransportOptions;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.channels.spi.SelectorProvider;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An event-loop group with the channel classes that match its I/O handler, and whether the transport owns it.
 * An owned group is shut down with the transport; a borrowed one is left alone. Thread-safe and immutable.
 */
public final class EventLoops {
    private static final Logger log = LoggerFactory.getLogger(EventLoops.class);

    private final EventLoopGroup group;
    private final NativeTransport kind;
    private final boolean owned;
    /** The loops' answer spin, or null when they never poll. */
    private final LoopSpin.Factory spin;

    private EventLoops(EventLoopGroup group, NativeTransport kind, boolean owned, LoopSpin.Factory spin) {
        this.group = group;
        this.kind = kind;
        this.owned = owned;
        this.spin = spin;
    }

    /**
     * Creates a group the caller owns. A native transport that is not available on this machine falls back to
     * NIO, with a log line saying why.
     */
    public static EventLoops create(NativeTransport requested, int threads, String name) {
        return create(requested, threads, name, Duration.ZERO);
    }

    /**
     * As {@link #create(NativeTransport, int, String)}, with loops that poll for up to {@code answerSpin} after
     * their handler expects an answer ({@link LoopSpin}); {@link Duration#ZERO} for plain loops. io_uring loops
     * never poll.
     */
    public static EventLoops create(NativeTransport requested, int threads, String name, Duration answerSpin) {
        NativeTransport kind = resolve(requested);
        LoopSpin.Factory spin = answerSpin.isZero() || kind == NativeTransport.IO_URING ? null
                : LoopSpin.factory(answerSpin);
        IoHandlerFactory factory;
        switch (kind) {
            case EPOLL:
                factory = spin != null ? EpollIoHandler.newFactory(0, spin) : EpollIoHandler.newFactory();
                break;
            case IO_URING:
                factory = IoUringIoHandler.newFactory();
                break;
            default:
                factory = spin != null ? NioIoHandler.newFactory(SelectorProvider.provider(), spin)
                        : NioIoHandler.newFactory();
                break;
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), factory);
        return new EventLoops(group, kind, true, spin);
    }

    /** Wraps a group the caller keeps ownership of; {@code kind} must match its I/O handler. */
    public static EventLoops borrow(EventLoopGroup group, NativeTransport kind) {
        if (kind == NativeTransport.AUTO) {
            throw new IllegalArgumentException("say which transport the borrowed group runs (NIO, EPOLL, IO_URING)");
        }
        return new EventLoops(group, kind, false, null);
    }

    /** The transport {@code requested} resolves to on this machine. */
    public static NativeTransport resolve(NativeTransport requested) {
        switch (requested) {
            case AUTO:
                return Epoll.isAvailable() ? NativeTransport.EPOLL : NativeTransport.NIO;
            case EPOLL:
                if (Epoll.isAvailable()) {
                    return NativeTransport.EPOLL;
                }
                log.info("epoll requested but unavailable ({}); falling back to NIO",
                        String.valueOf(Epoll.unavailabilityCause()));
                return NativeTransport.NIO;
            case IO_URING:
                if (IoUring.isAvailable()) {
                    return NativeTransport.IO_URING;
                }
                log.info("io_uring requested but unavailable ({}); falling back to NIO",
                        String.valueOf(IoUring.unavailabilityCause()));
                return NativeTransport.NIO;
            default:
                return NativeTransport.NIO;
        }
    }

    public EventLoopGroup group() {
        return group;
    }

    public NativeTransport kind() {
        return kind;
    }

    public boolean owned() {
        return owned;
    }

    /**
     * What the loops' answer spin counted ({@link LoopSpin}), or {@code null} when they do not poll (created
     * without one, io_uring, or a borrowed group). Any thread.
     */
    public LoopSpin.Stats answerSpinStats() {
        return spin == null ? null : spin.stats();
    }

    Class<? extends SocketChannel> socketChannelClass() {
        switch (kind) {
            case EPOLL:
                return EpollSocketChannel.class;
            case IO_URING:
                return IoUringSocketChannel.class;
            default:
                return NioSocketChannel.class;
        }
    }

    Class<? extends ServerChannel> serverChannelClass() {
        switch (kind) {
            case EPOLL:
                return EpollServerSocketChannel.class;
            case IO_URING:
                return IoUringServerSocketChannel.class;
            default:
                return NioServerSocketChannel.class;
        }
    }

    /** The buffer allocator every transport of {@code kind} uses (one per kind in the process). */
    public static ByteBufAllocator allocator(AllocatorKind kind) {
        return kind == AllocatorKind.ADAPTIVE ? AdaptiveHolder.INSTANCE : PooledByteBufAllocator.DEFAULT;
    }

    /**
     * Tells the options' observer, if any, that a transport started on these loops with the options' allocator
     * ({@link dev.sluice.transport.TransportObserver#transportStarted}). The building thread.
     */
    void started(TransportOptions options) {
        TransportObserver observer = GuardedObserver.of(options.observer());
        if (observer != null) {
            observer.transportStarted(group, options.allocator());
        }
    }

        /** Shuts the group down if owned; completes at once for a borrowed group. */
    CompletableFuture<Void> release(Duration timeout) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!owned) {
            done.complete(null);
            return done;
        }
        group.shutdownGracefully(0, Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS)
                .addListener(f -> done.complete(null));
        return done;
    }

    private static final class AdaptiveHolder {
        static final ByteBufAllocator INSTANCE = new AdaptiveByteBufAllocator();
    }
}
