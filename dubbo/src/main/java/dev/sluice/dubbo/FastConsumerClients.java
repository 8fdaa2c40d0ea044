package dev.sluice.dubbo;

import dev.sluice.rpc.SluiceClient;
import dev.sluice.transport.TransportOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.dubbo.common.URL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SluiceClient}s of the consumer lever, one per provider address and client settings ({@link #key}),
 * shared by every {@link FastConsumerInvoker} of that address (as Dubbo's {@code dubbo} protocol shares one connection
 * per address by default; a reference with {@code connections} set gets one of its own) and reference counted: the
 * first invoker of an address builds its client, the last one to let go closes it, after waiting (at most the given
 * time) for the calls still in flight.
 *
 * <p>A client connects when built, on Dubbo's thread that refers the service, for at most {@code connect.timeout};
 * when the provider cannot be reached it keeps redialling in the background with jittered backoff (the lever has no
 * Dubbo reconnect timer), and its invokers report themselves unavailable meanwhile.
 *
 * <p>Thread-safe: the table is guarded by this object's monitor; building and closing clients happen outside it.
 */
final class FastConsumerClients {
    private static final Logger log = LoggerFactory.getLogger(FastConsumerClients.class);

    /** Clients by {@link #key}. */
    private final Map<String, Shared> byAddress = new HashMap<>();

    /** One address's client and how many invokers hold it. */
    final class Shared {
        private final String address;
        private final SharedClientLoops.Lease loops;
        final SluiceClient client;
        private final AtomicBoolean closed = new AtomicBoolean();
        private int holders; // guarded by FastConsumerClients.this

        private Shared(String address, SharedClientLoops.Lease loops, SluiceClient client) {
            this.address = address;
            this.loops = loops;
            this.client = client;
        }

        /**
         * Lets go of this client; the last holder closes it once no call is in flight, or after
         * {@code waitMillis}, whichever comes first. Never call it on an event loop.
         */
        void release(long waitMillis) {
            synchronized (FastConsumerClients.this) {
                if (--holders > 0) {
                    return;
                }
                if (byAddress.get(address) == this) {
                    byAddress.remove(address);
                }
            }
            close(waitMillis);
        }

        private void close(long waitMillis) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, waitMillis));
            // Graceful: the calls in flight get their answers, as Dubbo's exchange channel waits for its futures.
            while (client.pendingCalls() > 0 && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            try {
                client.close();
            } finally {
                loops.release();
            }
        }
    }

    /**
     * The URL keys a client is built from: references that differ in one of them get clients of their own. Set on a
     * reference, as Dubbo's own keys: {@code heartbeat}, {@code payload}, {@code connect.timeout}, and Sluice's
     * client keys of {@link DubboUrlOptions}.
     */
    private static final String[] CLIENT_KEYS = {"heartbeat", "payload", "connect.timeout",
        DubboUrlOptions.STALL_TIMEOUT_KEY, DubboUrlOptions.NATIVE_KEY, DubboUrlOptions.PENDING_BYTES_KEY,
        DubboUrlOptions.VERIFY_HOSTNAME_KEY, DubboUrlOptions.METRICS_KEY};
    private static final AtomicLong DEDICATED = new AtomicLong();

    /**
     * Which client {@code url} uses: the address and the client keys' values; with Dubbo's {@code connections} key
     * above 0 (a connection of the reference's own), a client no other invoker shares.
     */
    static String key(URL url) {
        StringBuilder key = new StringBuilder(url.getAddress());
        for (String k : CLIENT_KEYS) {
            String v = url.getParameter(k);
            if (v != null) {
                key.append('|').append(k).append('=').append(v);
            }
        }
        if (url.getParameter("connections", 0) > 0) {
            key.append("|own#").append(DEDICATED.incrementAndGet());
        }
        return key.toString();
    }

    /**
     * The shared client for {@code url} (see {@link #key}), built when none is open; the caller must release it
     * once.
     */
    Shared acquire(URL url) {
        String address = key(url);
        synchronized (this) {
            Shared shared = byAddress.get(address);
            if (shared != null) {
                shared.holders++;
                return shared;
            }
        }
        Shared built = build(url, address);
        Shared loser = null;
        Shared result;
        synchronized (this) {
            Shared raced = byAddress.get(address);
            if (raced != null) {
                raced.holders++;
                loser = built;
                result = raced;
            } else {
                built.holders = 1;
                byAddress.put(address, built);
                result = built;
            }
        }
        if (loser != null) {
            loser.close(0);
        }
        return result;
    }

    private Shared build(URL url, String address) {
        // Dubbo's client options (payload, heartbeat, connect.timeout, sluice.stall-timeout, sluice.native, ...), but
        // the transport redials by itself: no Dubbo reconnect timer watches this client.
        TransportOptions options = DubboUrlOptions.client(url).toBuilder().reconnect(true).build();
        SharedClientLoops.Lease loops = SharedClientLoops.acquire(options.nativeTransport(), options.ioThreads());
        try {
            SluiceClient client = SluiceClient.builder()
                    .address(url.getHost(), url.getPort())
                    .options(options)
                    .eventLoops(loops.eventLoops())
                    .tls(DubboTls.client(url))
                    .failIfNotConnected(false)
                    .build();
            log.debug("Consumer lever: client {} built (connected: {})", address, client.isConnected());
            return new Shared(address, loops, client);
        } catch (RuntimeException | Error e) {
            loops.release();
            throw e;
        }
    }

    /** Closes every client (the protocol is destroyed), without waiting for calls in flight. */
    void closeAll() {
        List<Shared> all;
        synchronized (this) {
            all = new ArrayList<>(byAddress.values());
            byAddress.clear();
        }
        for (Shared s : all) {
            s.close(0);
        }
    }
}
