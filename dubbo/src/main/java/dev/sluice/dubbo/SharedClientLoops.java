package dev.sluice.dubbo;

import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The event-loop groups Sluice's Dubbo clients share, one per native transport, as Dubbo's netty4 clients share one
 * group per JVM. Reference counted: the first client to {@link #acquire} creates the group, the last to
 * {@link Lease#release} shuts it down, so nothing lingers once every client of a Dubbo application is closed.
 *
 * <p>Thread-safe (all state under the class monitor). Never call {@link Lease#release} on one of the group's own
 * event loops: it does not block, but the group it shuts down is the caller's.
 */
final class SharedClientLoops {
    private static final Map<NativeTransport, Shared> GROUPS = new EnumMap<>(NativeTransport.class);

    private SharedClientLoops() {
    }

    /** A lease on the shared group for {@code requested}; {@code threads} sizes it when this call creates it. */
    static synchronized Lease acquire(NativeTransport requested, int threads) {
        NativeTransport kind = EventLoops.resolve(requested);
        Shared shared = GROUPS.get(kind);
        if (shared == null) {
            shared = new Shared(kind, EventLoops.create(kind, threads, "sluice-dubbo-client"));
            GROUPS.put(kind, shared);
        }
        shared.leases++;
        return new Lease(shared);
    }

    private static synchronized void release(Shared shared) {
        if (--shared.leases > 0) {
            return;
        }
        if (GROUPS.get(shared.kind) == shared) {
            GROUPS.remove(shared.kind);
        }
        shared.owned.group().shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }

    private static final class Shared {
        final NativeTransport kind;
        final EventLoops owned;
        int leases; // guarded by SharedClientLoops.class

        Shared(NativeTransport kind, EventLoops owned) {
            this.kind = kind;
            this.owned = owned;
        }
    }

    /** One client's use of a shared group; release exactly once. */
    static final class Lease {
        private final Shared shared;
        private final EventLoops borrowed;
        private boolean released; // guarded by this

        private Lease(Shared shared) {
            this.shared = shared;
            this.borrowed = EventLoops.borrow(shared.owned.group(), shared.owned.kind());
        }

        /** The group as borrowed loops: a transport built on them leaves the group running when it closes. */
        EventLoops eventLoops() {
            return borrowed;
        }

        void release() {
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
            }
            SharedClientLoops.release(shared);
        }
    }
}
