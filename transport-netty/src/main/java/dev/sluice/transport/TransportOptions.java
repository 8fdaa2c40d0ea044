package dev.sluice.transport;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Typed transport options, parsed once. Immutable; build with {@link #builder()}. Every duration of zero
 * disables the corresponding timer.
 */
public final class TransportOptions {
    /** Dubbo's default payload limit: 8 MiB of body. */
    public static final int DEFAULT_PAYLOAD_LIMIT = 8 * 1024 * 1024;
    /** A suggested {@link #answerSpin()} (off by default), in microseconds: a few times a quick method's run. */
    public static final int SUGGESTED_ANSWER_SPIN_MICROS = 50;

    private final int ioThreads;
    private final Duration connectTimeout;
    private final Duration readerIdle;
    private final Duration writerIdle;
    private final Duration allIdle;
    private final int payloadLimit;
    private final int writeBufferLowWaterMark;
    private final int writeBufferHighWaterMark;
    private final long pendingBytesCap;
    private final int drainMaxMessages;
    private final int drainMaxBytes;
    private final BatchWrite batchWrite;
    private final NativeTransport nativeTransport;
    private final AllocatorKind allocator;
    private final boolean reconnect;
    private final Duration reconnectInitialBackoff;
    private final Duration reconnectMaxBackoff;
    private final Duration closeTimeout;
    private final int socketSendBuffer;
    private final int socketReceiveBuffer;
    private final TransportObserver observer;
    private final Duration stallTimeout;
    private final boolean verifyHostname;
    private final Duration answerSpin;
    private final Set<Setting> explicit;

    /**
     * A setting of these options, by the {@link Builder} method that sets it; {@link #isExplicit} tells one set
     * explicitly from a default. An endpoint builder that has a knob of its own for the same setting (the payload
     * limit, a client's heartbeat and stall timeout, a server's idle timeout) uses it to let an explicit value beat a
     * default whichever knob it came through, and to refuse two different explicit values.
     */
    public enum Setting {
        IO_THREADS, CONNECT_TIMEOUT, READER_IDLE, WRITER_IDLE, ALL_IDLE, PAYLOAD_LIMIT, WRITE_BUFFER_WATER_MARKS,
        PENDING_BYTES_CAP, DRAIN_CHUNK, BATCH_WRITE, NATIVE_TRANSPORT, ALLOCATOR, RECONNECT, RECONNECT_BACKOFF,
        CLOSE_TIMEOUT, SOCKET_BUFFERS, OBSERVER, STALL_TIMEOUT, ANSWER_SPIN, VERIFY_HOSTNAME;

        /** The name of the {@link Builder} method that sets it, such as {@code payloadLimit}. */
        public String method() {
            StringBuilder sb = new StringBuilder();
            for (String word : name().toLowerCase(Locale.ROOT).split("_")) {
                sb.append(sb.length() == 0 ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
            }
            return sb.toString();
        }
    }

    private TransportOptions(Builder b) {
        this.ioThreads = b.ioThreads;
        this.connectTimeout = b.connectTimeout;
        this.readerIdle = b.readerIdle;
        this.writerIdle = b.writerIdle;
        this.allIdle = b.allIdle;
        this.payloadLimit = b.payloadLimit;
        this.writeBufferLowWaterMark = b.writeBufferLowWaterMark;
        this.writeBufferHighWaterMark = b.writeBufferHighWaterMark;
        this.pendingBytesCap = b.pendingBytesCap;
        this.drainMaxMessages = b.drainMaxMessages;
        this.drainMaxBytes = b.drainMaxBytes;
        this.batchWrite = b.batchWrite;
        this.nativeTransport = b.nativeTransport;
        this.allocator = b.allocator;
        this.reconnect = b.reconnect;
        this.reconnectInitialBackoff = b.reconnectInitialBackoff;
        this.reconnectMaxBackoff = b.reconnectMaxBackoff;
        this.closeTimeout = b.closeTimeout;
        this.socketSendBuffer = b.socketSendBuffer;
        this.socketReceiveBuffer = b.socketReceiveBuffer;
        this.observer = b.observer;
        this.stallTimeout = b.stallTimeout;
        this.verifyHostname = b.verifyHostname;
        this.answerSpin = b.answerSpin;
        this.explicit = EnumSet.copyOf(b.explicit);
    }

    public static TransportOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.ioThreads = ioThreads;
        b.connectTimeout = connectTimeout;
        b.readerIdle = readerIdle;
        b.writerIdle = writerIdle;
        b.allIdle = allIdle;
        b.payloadLimit = payloadLimit;
        b.writeBufferLowWaterMark = writeBufferLowWaterMark;
        b.writeBufferHighWaterMark = writeBufferHighWaterMark;
        b.pendingBytesCap = pendingBytesCap;
        b.drainMaxMessages = drainMaxMessages;
        b.drainMaxBytes = drainMaxBytes;
        b.batchWrite = batchWrite;
        b.nativeTransport = nativeTransport;
        b.allocator = allocator;
        b.reconnect = reconnect;
        b.reconnectInitialBackoff = reconnectInitialBackoff;
        b.reconnectMaxBackoff = reconnectMaxBackoff;
        b.closeTimeout = closeTimeout;
        b.socketSendBuffer = socketSendBuffer;
        b.socketReceiveBuffer = socketReceiveBuffer;
        b.observer = observer;
        b.stallTimeout = stallTimeout;
        b.verifyHostname = verifyHostname;
        b.answerSpin = answerSpin;
        b.explicit.addAll(explicit);
        return b;
    }

    /**
     * Whether {@code setting} was set by its {@link Builder} method (here or in the options this one was copied from
     * by {@link #toBuilder()}), even to its default value; false when it holds the default untouched.
     */
    public boolean isExplicit(Setting setting) {
        return explicit.contains(setting);
    }

    /**
     * Event-loop threads of a group the transport owns; 0 means Netty's default (2 × cores). Like
     * {@link #nativeTransport()} and {@link #answerSpin()}, it shapes only a group the endpoint creates: event loops
     * the caller lends ({@code eventLoops(...)} on an endpoint builder) are used as they were made, whatever these
     * say.
     */
    public int ioThreads() {
        return ioThreads;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * Time without reads after which the handler is told ({@link IdleState#READER_IDLE}). On a {@code SluiceClient}
     * this is its heartbeat interval, the same setting as its builder's {@code heartbeat}: an explicit value either
     * way beats the default (60 s there), and two different explicit values fail the build naming both.
     */
    public Duration readerIdle() {
        return readerIdle;
    }

    public Duration writerIdle() {
        return writerIdle;
    }

    /**
     * Time without reads and writes after which the handler is told ({@link IdleState#ALL_IDLE}). On a
     * {@code SluiceServer} this is its idle timeout, the same setting as its builder's {@code idleTimeout}: an
     * explicit value either way beats the default (180 s there), and two different explicit values fail the start
     * naming both.
     */
    public Duration allIdle() {
        return allIdle;
    }

    /**
     * Largest frame body, in bytes, accepted on encode and decode; 0 or less disables the check. The same setting as
     * an endpoint builder's {@code payloadLimit}: an explicit value either way beats the default, whichever is called
     * first, and two different explicit values fail the build naming both.
     */
    public int payloadLimit() {
        return payloadLimit;
    }

    public int writeBufferLowWaterMark() {
        return writeBufferLowWaterMark;
    }

    public int writeBufferHighWaterMark() {
        return writeBufferHighWaterMark;
    }

    /**
     * Most bytes a connection holds unwritten (queued, or handed to the channel and not yet taken by the socket)
     * before {@code send} fails fast; while it is over this cap the connection also stops reading from its peer. Each
     * frame counts what it holds: its buffer's capacity plus a fixed per-frame overhead for the objects that carry
     * it, so many tiny frames cannot hold many times the cap in heap.
     */
    public long pendingBytesCap() {
        return pendingBytesCap;
    }

    /** Most messages one drain task writes before it flushes and yields the event loop. */
    public int drainMaxMessages() {
        return drainMaxMessages;
    }

    /** Most bytes one drain task writes before it flushes and yields the event loop. */
    public int drainMaxBytes() {
        return drainMaxBytes;
    }

    /** How a drained batch is written: one composite write (default) or one write per frame. */
    public BatchWrite batchWrite() {
        return batchWrite;
    }

    /**
     * The I/O kind (NIO, epoll, io_uring) of a group the transport owns. Event loops the caller lends
     * ({@code eventLoops(...)} on an endpoint builder) keep their own kind, whatever this says.
     */
    public NativeTransport nativeTransport() {
        return nativeTransport;
    }

    public AllocatorKind allocator() {
        return allocator;
    }

    /** Whether a client reconnects, with backoff, after its connection is lost. */
    public boolean reconnect() {
        return reconnect;
    }

    public Duration reconnectInitialBackoff() {
        return reconnectInitialBackoff;
    }

    public Duration reconnectMaxBackoff() {
        return reconnectMaxBackoff;
    }

    /**
     * How long a graceful {@link Connection#close()} may take to write what was queued before it. When the peer does
     * not read that much within this time (a frozen process, a black-holing proxy), the connection is closed
     * forcibly and whatever is left fails. Default 3 s.
     */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** {@code SO_SNDBUF} of every connection, in bytes; 0 (default) leaves it to the OS, which grows it as needed. */
    public int socketSendBuffer() {
        return socketSendBuffer;
    }

    /** {@code SO_RCVBUF} of every connection, in bytes; 0 (default) leaves it to the OS, which grows it as needed. */
    public int socketReceiveBuffer() {
        return socketReceiveBuffer;
    }

    /** Who receives this transport's counts (metrics); {@code null}, the default, for nobody. */
    public TransportObserver observer() {
        return observer;
    }

    /**
     * Client stall detection; {@link Duration#ZERO} (default) turns it off. When bytes were written and nothing has
     * been read for this long since, the connection sends the protocol's liveness probe
     * ({@link TransportHandler#probe}); when nothing at all is read for this long again after the probe, the
     * connection is <em>stalled</em> ({@link Connection#isStalled()}) until its next read. Detection therefore
     * takes between two and about two and a half times this value. A slow answer does not count: the peer answers
     * the probe on its I/O thread. Time during which the client's own event loop was held up is not counted, and at
     * most half of the process's connections in use are stalled at once (never all of them): most peers silent
     * together points at this process or its host, not at the peers.
     *
     * <p>On a {@code SluiceClient}, the same setting as its builder's {@code stallTimeout}: an explicit value either
     * way beats the default (1 s there, so an explicit zero here turns detection off), and two different explicit
     * values fail the build naming both.
     */
    public Duration stallTimeout() {
        return stallTimeout;
    }

    /**
     * With TLS on a client: whether the server's certificate must name the host the client dialled (HTTPS-style
     * endpoint identification). On by default; the Dubbo {@code sluice} Transporter turns it off unless the URL asks
     * for it ({@code sluice.tls.verify-hostname=true}), as Dubbo's own TLS client does not check host names.
     */
    public boolean verifyHostname() {
        return verifyHostname;
    }

    /**
     * Server event loops it owns: how long a loop polls instead of sleeping after its handler has handed a call to
     * another thread with nothing else in flight ({@link Connection#answerDue()}), so that the answer does not have
     * to wake it. Off ({@link Duration#ZERO}) by default; {@value #SUGGESTED_ANSWER_SPIN_MICROS} µs suits quick
     * methods. Adaptive: a window the answer missed halves the next, so a server whose methods take longer soon stops
     * polling. Costs at most this much CPU per call, only while calls come one at a time to an idle loop. Off by
     * default because it helps one caller and costs many callers a little throughput (docs/performance/README.md;
     * docs/guide/standalone.md says when to turn it on). NIO and epoll, not io_uring. A group the
     * caller lends polls as it was made ({@code EventLoops.create(kind, threads, name, answerSpin)}).
     */
    public Duration answerSpin() {
        return answerSpin;
    }

    @Override
    public String toString() {
        return "TransportOptions{ioThreads=" + ioThreads + ", connectTimeout=" + connectTimeout
                + ", readerIdle=" + readerIdle + ", writerIdle=" + writerIdle + ", allIdle=" + allIdle
                + ", payloadLimit=" + payloadLimit + ", waterMarks=" + writeBufferLowWaterMark + "/"
                + writeBufferHighWaterMark + ", pendingBytesCap=" + pendingBytesCap + ", drain="
                + drainMaxMessages + " msgs/" + drainMaxBytes + " bytes, " + batchWrite + ", native=" + nativeTransport
                + ", allocator=" + allocator + ", reconnect=" + reconnect + ", closeTimeout=" + closeTimeout
                + ", socketBuffers=" + socketSendBuffer + "/" + socketReceiveBuffer + ", stallTimeout=" + stallTimeout
                + ", verifyHostname=" + verifyHostname + ", answerSpin=" + answerSpin
                + "}";
    }

    /** Builder; every setter validates its argument at once. */
    public static final class Builder {
        private int ioThreads = 0;
        private Duration connectTimeout = Duration.ofSeconds(3);
        private Duration readerIdle = Duration.ZERO;
        private Duration writerIdle = Duration.ZERO;
        private Duration allIdle = Duration.ZERO;
        private int payloadLimit = DEFAULT_PAYLOAD_LIMIT;
        private int writeBufferLowWaterMark = 32 * 1024;
        private int writeBufferHighWaterMark = 64 * 1024;
        private long pendingBytesCap = 64L * 1024 * 1024;
        private int drainMaxMessages = 128;
        private int drainMaxBytes = 256 * 1024;
        private BatchWrite batchWrite = BatchWrite.COMPOSITE;
        private NativeTransport nativeTransport = NativeTransport.NIO;
        private AllocatorKind allocator = AllocatorKind.POOLED;
        private boolean reconnect = true;
        private Duration reconnectInitialBackoff = Duration.ofMillis(100);
        private Duration reconnectMaxBackoff = Duration.ofSeconds(5);
        private Duration closeTimeout = Duration.ofSeconds(3);
        private int socketSendBuffer;
        private int socketReceiveBuffer;
        private TransportObserver observer;
        private Duration stallTimeout = Duration.ZERO;
        private Duration answerSpin = Duration.ZERO;
        private boolean verifyHostname = true;
        private final Set<Setting> explicit = EnumSet.noneOf(Setting.class);

        private Builder() {
        }

        private Builder set(Setting setting) {
            explicit.add(setting);
            return this;
        }

        public Builder ioThreads(int threads) {
            if (threads < 0) {
                throw new IllegalArgumentException("ioThreads must be >= 0 (0 = Netty default), got " + threads);
            }
            this.ioThreads = threads;
            return set(Setting.IO_THREADS);
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return set(Setting.CONNECT_TIMEOUT);
        }

        public Builder readerIdle(Duration d) {
            this.readerIdle = nonNegative(d, "readerIdle");
            return set(Setting.READER_IDLE);
        }

        public Builder writerIdle(Duration d) {
            this.writerIdle = nonNegative(d, "writerIdle");
            return set(Setting.WRITER_IDLE);
        }

        public Builder allIdle(Duration d) {
            this.allIdle = nonNegative(d, "allIdle");
            return set(Setting.ALL_IDLE);
        }

        public Builder payloadLimit(int bytes) {
            this.payloadLimit = bytes;
            return set(Setting.PAYLOAD_LIMIT);
        }

        public Builder writeBufferWaterMarks(int low, int high) {
            if (low < 0 || high < low) {
                throw new IllegalArgumentException("water marks need 0 <= low <= high, got low=" + low + " high="
                        + high);
            }
            this.writeBufferLowWaterMark = low;
            this.writeBufferHighWaterMark = high;
            return set(Setting.WRITE_BUFFER_WATER_MARKS);
        }

        public Builder pendingBytesCap(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("pendingBytesCap must be > 0, got " + bytes);
            }
            this.pendingBytesCap = bytes;
            return set(Setting.PENDING_BYTES_CAP);
        }

        public Builder drainChunk(int maxMessages, int maxBytes) {
            if (maxMessages < 1 || maxBytes < 1) {
                throw new IllegalArgumentException("drain chunk needs >= 1 message and >= 1 byte, got "
                        + maxMessages + " messages / " + maxBytes + " bytes");
            }
            this.drainMaxMessages = maxMessages;
            this.drainMaxBytes = maxBytes;
            return set(Setting.DRAIN_CHUNK);
        }

        public Builder batchWrite(BatchWrite mode) {
            this.batchWrite = Objects.requireNonNull(mode, "batchWrite");
            return set(Setting.BATCH_WRITE);
        }

        public Builder nativeTransport(NativeTransport transport) {
            this.nativeTransport = Objects.requireNonNull(transport, "nativeTransport");
            return set(Setting.NATIVE_TRANSPORT);
        }

        public Builder allocator(AllocatorKind kind) {
            this.allocator = Objects.requireNonNull(kind, "allocator");
            return set(Setting.ALLOCATOR);
        }

        public Builder reconnect(boolean enabled) {
            this.reconnect = enabled;
            return set(Setting.RECONNECT);
        }

        public Builder reconnectBackoff(Duration initial, Duration max) {
            this.reconnectInitialBackoff = positive(initial, "reconnect initial backoff");
            this.reconnectMaxBackoff = positive(max, "reconnect max backoff");
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("reconnect max backoff " + max + " is below initial " + initial);
            }
            return set(Setting.RECONNECT_BACKOFF);
        }

        /** See {@link TransportOptions#closeTimeout()}. */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = positive(timeout, "closeTimeout");
            return set(Setting.CLOSE_TIMEOUT);
        }

        /**
         * Fixed socket buffer sizes ({@code SO_SNDBUF}, {@code SO_RCVBUF}) for every connection; 0 keeps the OS
         * default, which the kernel tunes. A fixed size also turns the kernel's tuning off for that buffer.
         */
        public Builder socketBuffers(int sendBytes, int receiveBytes) {
            if (sendBytes < 0 || receiveBytes < 0) {
                throw new IllegalArgumentException("socket buffer sizes must be >= 0 (0 = OS default), got send="
                        + sendBytes + " receive=" + receiveBytes);
            }
            this.socketSendBuffer = sendBytes;
            this.socketReceiveBuffer = receiveBytes;
            return set(Setting.SOCKET_BUFFERS);
        }

        /** See {@link TransportOptions#observer()}; {@code null} removes it. */
        public Builder observer(TransportObserver observer) {
            this.observer = observer;
            return set(Setting.OBSERVER);
        }

        /** See {@link TransportOptions#stallTimeout()}; {@link Duration#ZERO} turns stall detection off. */
        public Builder stallTimeout(Duration timeout) {
            this.stallTimeout = nonNegative(timeout, "stallTimeout");
            return set(Setting.STALL_TIMEOUT);
        }

        /**
         * See {@link TransportOptions#answerSpin()}; {@link Duration#ZERO} turns it off, else at least 1 µs and at
         * most 1 ms (a longer poll is a busy core, not a wake-up saved).
         */
        public Builder answerSpin(Duration window) {
            nonNegative(window, "answerSpin");
            if (!window.isZero() && (window.toNanos() < 1_000 || window.toNanos() > 1_000_000)) {
                throw new IllegalArgumentException("answerSpin must be 0 (off) or between 1 µs and 1 ms, got "
                        + window);
            }
            this.answerSpin = window;
            return set(Setting.ANSWER_SPIN);
        }

        /** See {@link TransportOptions#verifyHostname()}. */
        public Builder verifyHostname(boolean verify) {
            this.verifyHostname = verify;
            return set(Setting.VERIFY_HOSTNAME);
        }

        public TransportOptions build() {
            return new TransportOptions(this);
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }

        private static Duration nonNegative(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " must be >= 0 (0 disables), got " + d);
            }
            return d;
        }
    }
}
