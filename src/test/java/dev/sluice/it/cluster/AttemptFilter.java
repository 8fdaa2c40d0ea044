package dev.sluice.it.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.dubbo.rpc.Filter;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcException;

/**
 * Consumer-side Dubbo {@link Filter} of the cluster scenario: records every attempt of a {@link ClusterService}
 * call — which provider (port) it went to and how it ended — so that a call executed more than once can be
 * explained by the attempts Dubbo's failover cluster made. It sits in the per-provider invoker chain (below the
 * cluster), so each retry is a separate attempt. Only used where a reference names it ({@value #NAME}, registered in
 * {@code META-INF/dubbo/org.apache.dubbo.rpc.Filter}); it has no {@code @Activate}.
 *
 * <p>Runs on the calling threads and on whatever thread completes an asynchronous result; the log is thread-safe.
 * One scenario per JVM: the log is static because Dubbo instantiates the filter.
 */
public final class AttemptFilter implements Filter {
    /** The extension name to put in a reference's {@code filter}. */
    public static final String NAME = "sluice-it-attempts";

    /** How one attempt ended. */
    enum Outcome {
        /** An answer came back. */
        OK,
        /** The consumer gave up waiting: the request may have reached the provider and run. */
        TIMEOUT,
        /** A network failure: the connection failed or closed, before or after the request went out. */
        NETWORK,
        /** Anything else (e.g. a provider's refusal with an error status, no connection to pick). */
        OTHER
    }

    /** One attempt of call {@code callId} on the provider at {@code port}. */
    record Attempt(long callId, int port, Outcome outcome, String error) {}

    private static final ConcurrentLinkedQueue<Attempt> LOG = new ConcurrentLinkedQueue<>();

    @Override
    public Result invoke(Invoker<?> invoker, Invocation invocation) throws RpcException {
        Object[] args = invocation.getArguments();
        if (!"call".equals(invocation.getMethodName()) || args == null || args.length != 1
                || !(args[0] instanceof Long)) {
            return invoker.invoke(invocation);
        }
        long callId = (Long) args[0];
        int port = invoker.getUrl().getPort();
        Result result;
        try {
            result = invoker.invoke(invocation);
        } catch (RuntimeException e) {
            LOG.add(new Attempt(callId, port, classify(e), e.getClass().getSimpleName()));
            throw e;
        }
        return result.whenCompleteWithContext((r, t) -> {
            Throwable error = t != null ? t : r.getException();
            LOG.add(error == null
                    ? new Attempt(callId, port, Outcome.OK, null)
                    : new Attempt(callId, port, classify(error), error.getClass().getSimpleName()));
        });
    }

    private static Outcome classify(Throwable error) {
        if (error instanceof RpcException) {
            RpcException rpc = (RpcException) error;
            if (rpc.isTimeout()) {
                return Outcome.TIMEOUT;
            }
            if (rpc.isNetwork()) {
                return Outcome.NETWORK;
            }
        }
        return Outcome.OTHER;
    }

    /** Every attempt recorded so far, grouped by call id, in the order they ended. */
    static Map<Long, List<Attempt>> attemptsByCall() {
        Map<Long, List<Attempt>> byCall = new ConcurrentHashMap<>();
        for (Attempt a : LOG) {
            byCall.computeIfAbsent(a.callId(), id -> new ArrayList<>()).add(a);
        }
        return byCall;
    }

    /** Forgets everything recorded. */
    static void clear() {
        LOG.clear();
    }
}
