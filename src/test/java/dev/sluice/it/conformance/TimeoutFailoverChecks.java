package dev.sluice.it.conformance;

import static dev.sluice.it.conformance.Checks.require;

import dev.sluice.it.harness.DubboPeers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * What a Dubbo consumer's cluster relies on from the invoker under it, checked the same on every Dubbo-to-Dubbo
 * pairing (Dubbo's own invoker is the control for the consumer lever's): a call past its timeout fails with Dubbo's
 * timeout {@link RpcException} (synchronous, and asynchronous through the {@code async} attachment), and with two
 * providers behind a failover cluster every call is still answered when one of them stops. Each check runs its own
 * providers ({@link BulkServiceImpl}) and consumer on the pairing's Transporters.
 *
 * <p>Runs on the scenario's main thread.
 */
final class TimeoutFailoverChecks {
    /** The reference's timeout in the timeout check, far below the 20 s a held call waits at most. */
    private static final int SHORT_TIMEOUT_MS = 300;
    private static final int CALLS = 40;

    private final Pairing pairing;
    private final String host;

    TimeoutFailoverChecks(Pairing pairing, String host) {
        this.pairing = pairing;
        this.host = host;
    }

    /** A held call times out (sync, then async) as Dubbo's timeout RpcException; the next call works. */
    Object[] timeout() throws Exception {
        int port = DubboPeers.freePort();
        BulkServiceImpl impl = new BulkServiceImpl();
        DubboNodes.Provider provider = DubboNodes.Provider.start(pairing.serverTransporter(), port, Map.of(),
                List.of(DubboNodes.service(BulkService.class, impl, null, null)));
        ReferenceConfig<BulkService> ref = DubboNodes.reference(BulkService.class, null, null);
        DubboNodes.Consumer consumer = DubboNodes.Consumer.start("timeout", pairing.clientTransporter(), host, port,
                SHORT_TIMEOUT_MS, Map.of(), true, List.of(ref));
        try {
            BulkService bulk = ref.get();
            long t0 = System.nanoTime();
            RpcException sync = null;
            try {
                bulk.hold(1);
            } catch (RpcException e) {
                sync = e;
            }
            long syncMs = ConnectionChecks.millisSince(t0);
            require(sync != null, "a held call returned instead of timing out");
            require(sync.isTimeout(), "not Dubbo's timeout RpcException (code " + sync.getCode() + "): " + sync);
            require(syncMs >= SHORT_TIMEOUT_MS - 50 && syncMs < 5 * SHORT_TIMEOUT_MS, "timed out after " + syncMs
                    + " ms, timeout " + SHORT_TIMEOUT_MS);

            long t1 = System.nanoTime();
            // Dubbo's async=true call, as its guide writes it: the proxy returns at once, the future is the context's.
            RpcContext.getClientAttachment().setAttachment("async", "true");
            bulk.hold(2);
            CompletableFuture<Integer> async = RpcContext.getServiceContext().getCompletableFuture();
            Throwable failure = null;
            try {
                async.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
            long asyncMs = ConnectionChecks.millisSince(t1);
            require(failure != null, "a held asynchronous call completed instead of timing out");
            require(isTimeout(failure), "asynchronous timeout is not Dubbo's timeout: " + chain(failure));
            require(asyncMs < 5 * SHORT_TIMEOUT_MS, "asynchronous call timed out after " + asyncMs + " ms");

            impl.open();
            require(bulk.hold(3) == 3, "the call after the timeouts failed");
            return new Object[] {"syncMs", syncMs, "asyncMs", asyncMs, "code", sync.getCode()};
        } finally {
            impl.open();
            consumer.stop();
            provider.stop();
        }
    }

    /** Two providers behind a failover cluster: both serve; one stops; every later call is answered by the other. */
    Object[] failover() throws Exception {
        int port1 = DubboPeers.freePort();
        int port2 = DubboPeers.freePort();
        while (port2 == port1) {
            port2 = DubboPeers.freePort();
        }
        BulkServiceImpl impl1 = new BulkServiceImpl();
        BulkServiceImpl impl2 = new BulkServiceImpl();
        impl1.open();
        impl2.open();
        DubboNodes.Provider p1 = DubboNodes.Provider.start(pairing.serverTransporter(), port1, Map.of(),
                List.of(DubboNodes.service(BulkService.class, impl1, null, null)));
        DubboNodes.Provider p2 = DubboNodes.Provider.start(pairing.serverTransporter(), port2, Map.of(),
                List.of(DubboNodes.service(BulkService.class, impl2, null, null)));
        boolean p1Running = true;
        FrameworkModel model = new FrameworkModel();
        ReferenceConfig<BulkService> ref = DubboNodes.reference(BulkService.class, null, null);
        ref.setUrl(DubboNodes.consumerUrl(host, port1) + ";" + DubboNodes.consumerUrl(host, port2));
        String transporter = pairing.clientTransporter();
        ref.setClient(DubboNodes.clientOf(transporter));
        ref.setParameters(DubboNodes.withLever(transporter, Map.of()));
        ref.setCheck(false);
        ref.setScope("remote");
        ref.setTimeout(5_000);
        ref.setCluster("failover");
        ref.setRetries(2);
        ref.setLoadbalance("roundrobin");
        DubboBootstrap consumer = DubboBootstrap.newInstance(model)
                .application(DubboPeers.application("failover"))
                .registry(DubboPeers.noRegistry())
                .reference(ref)
                .start();
        try {
            BulkService bulk = ref.get();
            List<String> errors = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                calls(bulk, i, errors);
            }
            int before1 = impl1.entered();
            int before2 = impl2.entered();
            require(errors.isEmpty(), "calls failed with both providers up: " + errors);
            require(before1 > 0 && before2 > 0, "the cluster did not use both providers: " + before1 + " and "
                    + before2 + " calls");

            p1.stop();
            p1Running = false;
            for (int i = 0; i < CALLS; i++) {
                calls(bulk, CALLS + i, errors);
            }
            require(errors.isEmpty(), "calls failed after provider 1 stopped: " + errors);
            int after1 = impl1.entered() - before1;
            int after2 = impl2.entered() - before2;
            require(after1 == 0 && after2 == CALLS, "after the stop provider 1 ran " + after1 + " and provider 2 "
                    + after2 + " of " + CALLS + " calls");
            return new Object[] {"before1", before1, "before2", before2, "after2", after2};
        } finally {
            consumer.stop();
            model.destroy();
            if (p1Running) {
                p1.stop();
            }
            p2.stop();
        }
    }

    private static void calls(BulkService bulk, int i, List<String> errors) {
        try {
            int answer = bulk.hold(i);
            if (answer != i) {
                errors.add("hold(" + i + ") = " + answer);
            }
        } catch (RuntimeException e) {
            errors.add(e.toString());
        }
    }

    private static boolean isTimeout(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof org.apache.dubbo.remoting.TimeoutException
                    || c instanceof RpcException && ((RpcException) c).isTimeout()) {
                return true;
            }
        }
        return false;
    }

    private static String chain(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            sb.append(c).append(" | ");
        }
        return sb.toString();
    }
}
