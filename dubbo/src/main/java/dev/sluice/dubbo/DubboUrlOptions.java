package dev.sluice.dubbo;

import dev.sluice.codec.dubbo.DecodeLimits;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportObserver;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.micrometer.MicrometerTransportObserver;
import java.time.Duration;
import java.util.Locale;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.remoting.Constants;
import org.apache.dubbo.remoting.utils.UrlUtils;

/**
 * Turns the URL parameters Dubbo users set into Sluice's typed {@link TransportOptions}, once per endpoint.
 *
 * <table>
 *   <caption>URL parameters</caption>
 *   <tr><th>key</th><th>effect</th></tr>
 *   <tr><td>{@code payload}</td><td>payload limit (default 8 MiB): checked by Dubbo's codec on encode, and by the
 *       decoder on every inbound frame header</td></tr>
 *   <tr><td>{@code heartbeat}</td><td>client: reader-idle period after which a heartbeat request is sent</td></tr>
 *   <tr><td>{@code close.timeout}, {@code heartbeat.timeout}</td><td>server: all-idle period after which the
 *       connection is closed (Dubbo's {@code UrlUtils.getCloseTimeout})</td></tr>
 *   <tr><td>{@code connect.timeout}</td><td>connect timeout (default 3000 ms)</td></tr>
 *   <tr><td>{@code iothreads}</td><td>server event-loop threads (default min(cores + 1, 32)); clients share one
 *       group per JVM of that default size, as Dubbo's netty4 clients do</td></tr>
 *   <tr><td>{@code sluice.native}</td><td>{@code nio} | {@code epoll} | {@code io_uring} | {@code auto}; else the
 *       system property of the same name; else epoll when the system property {@code netty.epoll.enable=true}
 *       (Dubbo's switch); else NIO. An unavailable native transport falls back to NIO.</td></tr>
 *   <tr><td>{@code sluice.reconnect}</td><td>client: {@code fast} (or {@code true}) makes the transport itself also
 *       redial after losing its connection or failing its first connect, each wait drawn at random between 50 ms and
 *       a ceiling that starts at 100 ms and doubles to 5 s (full jitter with a floor, so consumers that lost the
 *       same provider do not redial in step); absent, {@code false} or {@code dubbo} (the default): only Dubbo's
 *       reconnect timer redials, as with Dubbo's own transports ({@code reconnect} is Dubbo's key for that timer).
 *       See {@link SluiceDubboClient}.</td></tr>
 *   <tr><td>{@code sluice.metrics}</td><td>a name: records the transport meters of this endpoint, tagged
 *       {@code transport=<name>}, in Micrometer's global registry ({@code Metrics.globalRegistry}, which Spring
 *       Boot's and Dubbo's own metrics use by default); endpoints with the same name share meters. Needs
 *       {@code io.micrometer:micrometer-core} on the class path; absent (the default), nothing is recorded. Also
 *       records per-call timers, {@code sluice.calls} (see {@link CallClock}, {@link MicrometerCallMeters}).</td></tr>
 *   <tr><td>{@code sluice.pending-bytes}</td><td>the most bytes a connection may have queued for writing and not yet
 *       written (default 64 MiB): past it a send fails at once ({@code PendingBytesExceededException}, sizes in the
 *       message) instead of queueing without bound behind a peer that does not read. On a provider, a consumer that
 *       stops reading holds at most this much of its memory. See
 *       {@link dev.sluice.transport.TransportOptions#pendingBytesCap()}.</td></tr>
 *   <tr><td>{@code sluice.stall-timeout}</td><td>client: stall detection, in ms; absent or 0 (default) = off. When
 *       a request was written and nothing was read for this long, a heartbeat probe goes out; when that is not
 *       answered within this long either, the channel reports itself readonly, so {@code DubboInvoker.isAvailable()}
 *       is false and the cluster picks other providers, until the first byte is read. Set it on the reference or the
 *       consumer config ({@code parameters}), like Dubbo's own keys. See
 *       {@link dev.sluice.transport.TransportOptions#stallTimeout()}.</td></tr>
 *   <tr><td>{@code sluice.frame-timeout}</td><td>server: the most time, in ms, a frame may take to arrive once its
 *       first byte is in (default 30000, as a standalone {@code SluiceServer}; 0 turns it off). A peer that sends a
 *       header and then trickles the body keeps resetting the idle timer; this closes its connection, logged at WARN
 *       (at most once a second). Raise it for very large frames over slow links. See
 *       {@link dev.sluice.transport.netty.NettyServerTransport.Builder#frameTimeout}.</td></tr>
 *   <tr><td>{@code sluice.max-connections-per-address}</td><td>server: the most connections open at once from one
 *       remote IP address (default 1000, as a standalone {@code SluiceServer}; 0 lifts the limit). A connection over
 *       it is closed as it is accepted, before any byte is read, logged at WARN (at most once a second).</td></tr>
 *   <tr><td>{@code accepts}</td><td>server: Dubbo's own total limit on open connections (default 0, none); the
 *       transport enforces it as it accepts a connection, like the per-address limit, so a refused connection costs
 *       no Dubbo channel and no log line beyond the limited one.</td></tr>
 *   <tr><td>{@code sluice.body-check}</td><td>server and client: {@code true} (the default) walks every request and
 *       response body in hessian2 or fastjson2 with the codec's bounds walkers on the event loop before Dubbo's codec
 *       decodes it; a body over a limit is refused: a request is answered {@code BAD_REQUEST} (40), a response fails
 *       its call as {@code CLIENT_ERROR} (90), each naming the limit and its key, and the connection goes on.
 *       {@code false} hands every body to Dubbo as it came. See {@link BodyCheck} (docs/reliability.md H36).</td></tr>
 *   <tr><td>{@code sluice.max-number-digits}</td><td>with the body check: the most digits a number written as text
 *       may have (default 1000, as a {@code SluiceServer}'s {@code maxNumberDigits}); exponents beyond 9999 are
 *       refused whatever it is.</td></tr>
 *   <tr><td>{@code sluice.max-decoded-elements}</td><td>with the body check: the most values (lists, maps, objects,
 *       strings, scalars at any depth) one body may decode to (default 1,000,000, as a {@code SluiceServer}'s
 *       {@code maxDecodedElements}). Nesting is refused deeper than the walkers' fixed depth (128 levels in hessian2,
 *       200 in fastjson2), runs of class definitions counting as levels.</td></tr>
 *   <tr><td>{@code sluice.tls.verify-hostname}</td><td>client with TLS (Dubbo's SSL config): {@code true} makes the
 *       provider's certificate name the address dialled; off by default, as Dubbo's own TLS client does not check
 *       host names (certificates of providers found through a registry seldom name their IP addresses). See
 *       {@link dev.sluice.transport.TransportOptions#verifyHostname()}.</td></tr>
 * </table>
 *
 * <p>Stateless; any thread.
 */
final class DubboUrlOptions {
    static final String NATIVE_KEY = "sluice.native";
    static final String RECONNECT_KEY = "sluice.reconnect";
    static final String METRICS_KEY = "sluice.metrics";
    static final String STALL_TIMEOUT_KEY = "sluice.stall-timeout";
    static final String PENDING_BYTES_KEY = "sluice.pending-bytes";
    static final String VERIFY_HOSTNAME_KEY = "sluice.tls.verify-hostname";
    static final String FRAME_TIMEOUT_KEY = "sluice.frame-timeout";
    static final String MAX_CONNECTIONS_PER_ADDRESS_KEY = "sluice.max-connections-per-address";
    static final String BODY_CHECK_KEY = "sluice.body-check";
    static final String MAX_NUMBER_DIGITS_KEY = "sluice.max-number-digits";
    static final String MAX_DECODED_ELEMENTS_KEY = "sluice.max-decoded-elements";
    /** How a refused connection's log line names the setting that raises each limit inside Dubbo. */
    static final String MAX_CONNECTIONS_SETTING = "the accepts URL key";
    static final String MAX_CONNECTIONS_PER_ADDRESS_SETTING = "the " + MAX_CONNECTIONS_PER_ADDRESS_KEY + " URL key";
    /** Default of {@code sluice.frame-timeout}, as a standalone {@code SluiceServer}'s. */
    static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(30);
    /** Default of {@code sluice.max-connections-per-address}, as a standalone {@code SluiceServer}'s. */
    static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1_000;

    private DubboUrlOptions() {
    }

    static TransportOptions server(URL url) {
        TransportOptions.Builder b = common(url)
                .ioThreads(url.getPositiveParameter(CommonConstants.IO_THREADS_KEY, Constants.DEFAULT_IO_THREADS));
        int closeTimeout = UrlUtils.getCloseTimeout(url);
        if (closeTimeout > 0) {
            b.allIdle(Duration.ofMillis(closeTimeout));
        }
        return b.reconnect(false).build();
    }

    static TransportOptions client(URL url) {
        TransportOptions.Builder b = common(url).ioThreads(Constants.DEFAULT_IO_THREADS);
        int heartbeat = UrlUtils.getHeartbeat(url);
        if (heartbeat > 0) {
            b.readerIdle(Duration.ofMillis(heartbeat));
        }
        // Dubbo's contract: a client redials only from its reconnect timer (Dubbo's own `reconnect` key governs that
        // timer). Sluice's backoff redial, faster after a provider restart, is opt-in.
        boolean reconnect = fastReconnect(url);
        String verify = url.getParameter(VERIFY_HOSTNAME_KEY);
        b.verifyHostname(verify != null && Boolean.parseBoolean(verify.trim()));
        return b.reconnect(reconnect).stallTimeout(stallTimeout(url)).build();
    }

    /** {@code sluice.reconnect=fast} (or {@code true}): the transport's own jittered backoff redial; else Dubbo's. */
    static boolean fastReconnect(URL url) {
        String own = url.getParameter(RECONNECT_KEY);
        if (own == null) {
            return false;
        }
        String v = own.trim().toLowerCase(java.util.Locale.ROOT);
        if (v.equals("fast") || v.equals("true")) {
            return true;
        }
        if (v.isEmpty() || v.equals("false") || v.equals("dubbo")) {
            return false;
        }
        throw new IllegalArgumentException(RECONNECT_KEY + "=" + own + " is not one of fast, true, false or dubbo"
                + " (fast: Sluice's jittered backoff redial as well as Dubbo's reconnect timer)");
    }

    private static TransportOptions.Builder common(URL url) {
        String metrics = metricsName(url);
        TransportOptions.Builder b = TransportOptions.builder();
        long pendingBytes = url.getParameter(PENDING_BYTES_KEY, 0L);
        if (pendingBytes < 0) {
            throw new IllegalArgumentException(PENDING_BYTES_KEY + "=" + pendingBytes
                    + " must be > 0 bytes (absent or 0: the default, " + b.build().pendingBytesCap() + ")");
        }
        if (pendingBytes > 0) {
            b.pendingBytesCap(pendingBytes);
        }
        return b
                .observer(metrics == null ? null : micrometer(metrics))
                .payloadLimit(url.getParameter(Constants.PAYLOAD_KEY, Constants.DEFAULT_PAYLOAD))
                .connectTimeout(Duration.ofMillis(
                        url.getPositiveParameter(Constants.CONNECT_TIMEOUT_KEY, Constants.DEFAULT_CONNECT_TIMEOUT)))
                .nativeTransport(nativeTransport(url));
    }

    /** The {@code sluice.metrics} name, trimmed, or null when absent or blank (nothing is recorded). */
    static String metricsName(URL url) {
        String metrics = url.getParameter(METRICS_KEY);
        return metrics == null || metrics.isBlank() ? null : metrics.trim();
    }

    /**
     * The per-call timers of one side with {@code sluice.metrics} set, else null. Loads the Micrometer binding only
     * then; a clear error when Micrometer is not there.
     */
    static CallMeters callMeters(URL url, boolean client) {
        String name = metricsName(url);
        if (name == null) {
            return null;
        }
        try {
            return MicrometerCallMeters.global(client);
        } catch (LinkageError e) {
            throw new IllegalStateException(METRICS_KEY + "=" + name + " records Micrometer meters, but"
                    + " io.micrometer:micrometer-core is not on the class path (" + e + "); add it or remove "
                    + METRICS_KEY, e);
        }
    }

    /** Loads the Micrometer binding only here, when asked for; a clear error when Micrometer is not there. */
    private static TransportObserver micrometer(String name) {
        try {
            return MicrometerTransportObserver.global(name);
        } catch (LinkageError e) {
            throw new IllegalStateException(METRICS_KEY + "=" + name + " records Micrometer meters, but"
                    + " io.micrometer:micrometer-core is not on the class path (" + e + "); add it or remove "
                    + METRICS_KEY, e);
        }
    }

    static Duration stallTimeout(URL url) {
        return Duration.ofMillis(nonNegative(url, STALL_TIMEOUT_KEY, 0, "ms (0 or absent turns stall detection off)"));
    }

    /** Server: {@code sluice.frame-timeout}, default {@link #DEFAULT_FRAME_TIMEOUT}; zero disables. */
    static Duration frameTimeout(URL url) {
        return Duration.ofMillis(nonNegative(url, FRAME_TIMEOUT_KEY, DEFAULT_FRAME_TIMEOUT.toMillis(),
                "ms (0 turns the frame timeout off; absent: " + DEFAULT_FRAME_TIMEOUT.toMillis() + ")"));
    }

    /** Server: {@code sluice.max-connections-per-address}, default {@value #DEFAULT_MAX_CONNECTIONS_PER_ADDRESS}. */
    static int maxConnectionsPerAddress(URL url) {
        return (int) Math.min(Integer.MAX_VALUE, nonNegative(url, MAX_CONNECTIONS_PER_ADDRESS_KEY,
                DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
                "connections (0 lifts the limit; absent: " + DEFAULT_MAX_CONNECTIONS_PER_ADDRESS + ")"));
    }

    /**
     * The limits of the body check ({@code sluice.body-check}, {@code sluice.max-number-digits},
     * {@code sluice.max-decoded-elements}); null when the check is off.
     */
    static DecodeLimits bodyLimits(URL url) {
        String check = url.getParameter(BODY_CHECK_KEY);
        if (check != null && !check.isBlank()) {
            String v = check.trim().toLowerCase(Locale.ROOT);
            if (v.equals("false")) {
                return null;
            }
            if (!v.equals("true")) {
                throw new IllegalArgumentException(BODY_CHECK_KEY + "=" + check + " is not true or false (true, the"
                        + " default: bodies are walked for their limits before Dubbo decodes them)");
            }
        }
        DecodeLimits limits = DecodeLimits.DEFAULTS;
        long digits = nonNegative(url, MAX_NUMBER_DIGITS_KEY, DecodeLimits.DEFAULT_MAX_NUMBER_DIGITS,
                "digits (absent: " + DecodeLimits.DEFAULT_MAX_NUMBER_DIGITS + ")");
        long elements = nonNegative(url, MAX_DECODED_ELEMENTS_KEY, DecodeLimits.DEFAULT_MAX_DECODED_ELEMENTS,
                "values (absent: " + DecodeLimits.DEFAULT_MAX_DECODED_ELEMENTS + ")");
        if (digits < 1 || digits > Integer.MAX_VALUE || elements < 1 || elements > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(MAX_NUMBER_DIGITS_KEY + "=" + digits + " and "
                    + MAX_DECODED_ELEMENTS_KEY + "=" + elements + " must each be between 1 and " + Integer.MAX_VALUE
                    + " (" + BODY_CHECK_KEY + "=false turns the check off)");
        }
        return limits.withMaxNumberDigits((int) digits).withMaxDecodedElements((int) elements);
    }

    /** Server: Dubbo's {@code accepts}, the most connections open at once; 0 (Dubbo's default) for no limit. */
    static int maxConnections(URL url) {
        return (int) Math.min(Integer.MAX_VALUE, nonNegative(url, Constants.ACCEPTS_KEY, Constants.DEFAULT_ACCEPTS,
                "connections (0 or absent: no limit)"));
    }

    /** The whole number {@code key} holds, {@code absent} when it is absent or blank; a clear error for the rest. */
    private static long nonNegative(URL url, String key, long absent, String unit) {
        String value = url.getParameter(key);
        if (value == null || value.isBlank()) {
            return absent;
        }
        long n;
        try {
            n = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not a whole number of " + unit, e);
        }
        if (n < 0) {
            throw new IllegalArgumentException(key + "=" + value + " must be >= 0 " + unit);
        }
        return n;
    }

    static NativeTransport nativeTransport(URL url) {
        String value = url.getParameter(NATIVE_KEY);
        if (value == null || value.isBlank()) {
            value = System.getProperty(NATIVE_KEY);
        }
        if (value != null && !value.isBlank()) {
            String v = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
            if (v.equals("IOURING")) {
                v = "IO_URING";
            }
            try {
                return NativeTransport.valueOf(v);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(NATIVE_KEY + "=" + value
                        + " is not one of nio, epoll, io_uring, auto", e);
            }
        }
        return Boolean.parseBoolean(System.getProperty(CommonConstants.ThirdPartyProperty.NETTY_EPOLL_ENABLE_KEY))
                ? NativeTransport.EPOLL : NativeTransport.NIO;
    }
}
