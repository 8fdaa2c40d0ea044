package dev.sluice.dubbo;

import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.DubboSerializationException;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.rpc.DescribedCalls;
import dev.sluice.rpc.Serialization;
import dev.sluice.transport.FrameTooLargeException;
import java.lang.reflect.Type;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.config.ConfigurationUtils;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.common.serialize.SerializationException;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.TimeoutException;
import org.apache.dubbo.remoting.utils.UrlUtils;
import org.apache.dubbo.rpc.AppResponse;
import org.apache.dubbo.rpc.AsyncRpcResult;
import org.apache.dubbo.rpc.FutureContext;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.InvokeMode;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.protocol.AbstractInvoker;
import org.apache.dubbo.rpc.support.RpcUtils;

/**
 * The consumer lever's invoker ({@link SluiceConsumerProtocol}, {@code sluice.consumer=fast}): one provider's
 * invoker, as {@code DubboInvoker} is, whose calls go through Sluice's client path ({@link DescribedCalls} on a
 * {@link dev.sluice.rpc.SluiceClient} shared per provider address) instead of Dubbo's exchange layer.
 *
 * <p><b>What it removes.</b> A synchronous call is encoded on the calling thread, registered in the client's slot
 * table and awaited on its own future; the event loop completes that future with the undecoded answer and the caller
 * reads the value. There is no {@code DefaultFuture}, no {@code HashedWheelTimer} entry and no
 * {@code ThreadlessExecutor} queue per call; a synchronous call's timeout is the caller's own wait, an asynchronous
 * call's the client's one sweep.
 *
 * <p><b>Dubbo's contract, kept.</b> It extends {@link AbstractInvoker}, so the invocation is prepared as for every
 * Dubbo invoker (the invoker's {@code interface}, {@code group} and {@code token} attachments, {@code RpcContext}'s
 * client attachments, the invoke mode, the serialization id) and a synchronous outcome is turned into Dubbo's
 * {@link RpcException} codes by the same code. Like {@code DubboInvoker} it sends {@code path}, {@code version} and
 * the call's {@code timeout} (Dubbo's {@code RpcUtils.calculateTimeout}: method, reference and {@code RpcContext}
 * settings, timeout countdown), and answers a call with no time left with {@code TIMEOUT_TERMINATE}. Failures reach
 * Dubbo as its exchange layer reports them: a timeout as its remoting {@code TimeoutException} ({@code
 * TIMEOUT_EXCEPTION}), an unreadable answer as a {@code SerializationException}, everything else (not connected,
 * stalled, connection lost, an error status from the provider) as a {@code RemotingException}
 * ({@code NETWORK_EXCEPTION}, which a failover cluster retries on another provider). The service's own exception is
 * the result's exception, the response's attachments the result's. Calls returning {@code CompletableFuture} and
 * {@code async=true} calls get an {@link AsyncRpcResult} completed on Sluice's callback executor. {@link #isAvailable}
 * is false while the connection is down, stalled ({@code sluice.stall-timeout}) or the provider announced its
 * shutdown, so the cluster picks other providers. {@link #destroy} lets go of the shared client, which closes once
 * the last invoker of the address lets go and its calls in flight are answered (at most the server shutdown time).
 *
 * <p><b>Not supported</b> (the reference must keep Dubbo's path, {@code sluice.consumer} unset): serializations other
 * than hessian2 and fastjson2 ({@code refer} fails naming it), callback parameters and stub events, the
 * {@code connections} and {@code shareconnections} keys (one shared connection per provider address), one-way
 * calls' {@code sent} key (a one-way call returns once queued).
 *
 * <p>Threads: {@link #invoke} runs on the calling thread (refused on an event loop when synchronous); any number of
 * threads at once. {@link #destroy} on Dubbo's thread that removes the provider or shuts down.
 */
final class FastConsumerInvoker<T> extends AbstractInvoker<T> {
    /** Dubbo's token key (in its rpc module's constants), sent with every call as {@code DubboInvoker} sends it. */
    private static final String TOKEN = "token";
    private final FastConsumerClients.Shared shared;
    private final Serialization serialization;
    private final String servicePath;
    private final InetSocketAddress remote;
    private final int shutdownTimeout;
    private final AtomicBoolean released = new AtomicBoolean();
    private final ConcurrentHashMap<MethodKey, DescribedCalls.Signature> signatures = new ConcurrentHashMap<>();

    /** A method of the service by name and parameter descriptor. */
    private record MethodKey(String name, String desc) {
    }

    FastConsumerInvoker(Class<T> type, URL url, FastConsumerClients clients) {
        super(type, url, new String[] {CommonConstants.INTERFACE_KEY, CommonConstants.GROUP_KEY, TOKEN});
        Byte id = UrlUtils.serializationId(url);
        this.serialization = id == null ? null : Serialization.ofId(id);
        if (serialization == null) {
            throw new RpcException(SluiceConsumerProtocol.KEY + "=" + SluiceConsumerProtocol.FAST + " speaks hessian2"
                    + " and fastjson2, but " + url.getServiceKey() + " at " + url.getAddress() + " is configured for "
                    + UrlUtils.serializationOrDefault(url) + "; set serialization=hessian2 or fastjson2, or remove "
                    + SluiceConsumerProtocol.KEY + " to keep Dubbo's own path");
        }
        this.servicePath = url.getParameter(CommonConstants.INTERFACE_KEY, url.getPath());
        this.remote = InetSocketAddress.createUnresolved(url.getHost(), url.getPort());
        this.shutdownTimeout = ConfigurationUtils.getServerShutdownTimeout(url.getScopeModel());
        this.shared = clients.acquire(url);
        DescribedCalls.allow(shared.client, type);
    }

    @Override
    protected Result doInvoke(Invocation invocation) throws Throwable {
        RpcInvocation inv = (RpcInvocation) invocation;
        String methodName = RpcUtils.getMethodName(invocation);
        inv.setAttachment(CommonConstants.PATH_KEY, getUrl().getPath());
        inv.setAttachment(CommonConstants.VERSION_KEY, version);
        boolean oneWay = RpcUtils.isOneway(getUrl(), invocation);
        int timeout = RpcUtils.calculateTimeout(getUrl(), invocation, methodName, CommonConstants.DEFAULT_TIMEOUT);
        if (timeout <= 0) {
            return AsyncRpcResult.newDefaultAsyncResult(new RpcException(RpcException.TIMEOUT_TERMINATE,
                    "No time left for making the following call: " + invocation.getServiceName() + "."
                            + methodName + ", terminate directly."), invocation);
        }
        inv.setAttachment(CommonConstants.TIMEOUT_KEY, String.valueOf(timeout));
        boolean async = inv.getInvokeMode() != InvokeMode.SYNC;
        DescribedCalls.Signature signature = signature(inv, timeout, async, oneWay);
        Map<String, Object> attachments = inv.getObjectAttachments();
        if (!async) {
            DescribedCalls.Answer answer;
            try {
                answer = DescribedCalls.call(shared.client, signature, inv.getArguments(), attachments);
            } catch (Error e) {
                throw e;
            } catch (Throwable t) { // NOPMD: every failure becomes Dubbo's, as its exchange layer reports it
                // Failed the way DubboInvoker's future fails; AbstractInvoker turns it into the RpcException code.
                return new AsyncRpcResult(CompletableFuture.failedFuture(dubboFailure(t)), inv);
            }
            return AsyncRpcResult.newDefaultAsyncResult(appResponse(answer, inv), inv);
        }
        CompletableFuture<DescribedCalls.Answer> answer;
        try {
            answer = DescribedCalls.callAsync(shared.client, signature, inv.getArguments(), attachments);
        } catch (Error e) {
            throw e;
        } catch (Throwable t) { // NOPMD: refused before sending, thrown as DubboInvoker throws it
            throw rpcException(dubboFailure(t), methodName);
        }
        CompletableFuture<AppResponse> response = new CompletableFuture<>();
        answer.whenComplete((a, t) -> {
            if (t != null) {
                response.completeExceptionally(dubboFailure(t));
            } else {
                response.complete(appResponse(a, inv));
            }
        });
        FutureContext.getContext().setCompatibleFuture(response);
        return new AsyncRpcResult(response, inv);
    }

    /** The signature of this call's method for this timeout and mode: made once, replaced when they change. */
    private DescribedCalls.Signature signature(RpcInvocation inv, int timeout, boolean async, boolean oneWay) {
        // On the wire: the invocation's own method ($invoke for a generic call), not the method the call means
        // (RpcUtils.getMethodName), which only chooses the call's settings (timeout, one-way).
        MethodKey key = new MethodKey(inv.getMethodName(), inv.getParameterTypesDesc());
        DescribedCalls.Signature s = signatures.get(key);
        if (s != null && s.timeoutMillis() == timeout && s.isAsync() == async && s.isOneWay() == oneWay) {
            return s;
        }
        Type[] returnTypes = RpcUtils.getReturnTypes(inv);
        Type valueType = Object.class;
        if (returnTypes != null) {
            valueType = returnTypes.length > 1 && returnTypes[1] != null ? returnTypes[1]
                    : returnTypes[0] != null ? returnTypes[0] : Object.class;
        }
        s = DescribedCalls.signature(DubboMethod.of(servicePath, version, key.name(), key.desc()),
                servicePath + "." + key.name(), valueType, async, oneWay, timeout, serialization);
        signatures.put(key, s);
        return s;
    }

    private static AppResponse appResponse(DescribedCalls.Answer answer, Invocation inv) {
        AppResponse response = new AppResponse(inv);
        if (answer.exception() != null) {
            response.setException(answer.exception());
        } else {
            response.setValue(answer.value());
        }
        if (answer.attachments() != null) {
            response.setObjectAttachments(new HashMap<>(answer.attachments()));
        }
        return response;
    }

    /** What failed a call, as Dubbo's exchange layer would have failed it. */
    private Throwable dubboFailure(Throwable t) {
        if (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof dev.sluice.rpc.RpcException) {
            int status = ((dev.sluice.rpc.RpcException) t).status();
            if (status == DubboConstants.STATUS_CLIENT_TIMEOUT || status == DubboConstants.STATUS_SERVER_TIMEOUT) {
                // Sluice's own timeout is the client's (whatever its send state); a provider's status 31 the server's.
                boolean serverSide = !(t instanceof dev.sluice.rpc.RpcTimeoutException);
                return new TimeoutException(serverSide, null, remote, t.getMessage());
            }
        }
        if (t instanceof DubboSerializationException || t.getCause() instanceof DubboSerializationException) {
            SerializationException e = new SerializationException(t.getMessage());
            e.initCause(t);
            return e;
        }
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof FrameTooLargeException) {
                // In the words of Dubbo's codec (ExchangeCodec.checkPayload), which Dubbo users search for.
                FrameTooLargeException f = (FrameTooLargeException) c;
                return new RemotingException(null, remote, "Data length too large: " + f.size() + ", max payload: "
                        + f.limit() + " (" + t.getMessage() + ")", t);
            }
        }
        if (t instanceof dev.sluice.transport.SluiceException) {
            return new RemotingException(null, remote, t.getMessage(), t);
        }
        return t;
    }

    /** A failure before sending, as {@code DubboInvoker} throws it. */
    private RpcException rpcException(Throwable failure, String methodName) {
        int code = failure instanceof TimeoutException ? RpcException.TIMEOUT_EXCEPTION
                : failure instanceof SerializationException ? RpcException.SERIALIZATION_EXCEPTION
                : failure instanceof RemotingException ? RpcException.NETWORK_EXCEPTION
                : RpcException.UNKNOWN_EXCEPTION;
        return new RpcException(code, "Failed to invoke remote method: " + methodName + ", provider: " + getUrl()
                + ", cause: " + failure.getMessage(), failure);
    }

    @Override
    public boolean isAvailable() {
        return super.isAvailable() && DescribedCalls.acceptsCalls(shared.client);
    }

    @Override
    public void destroy() {
        if (released.compareAndSet(false, true)) {
            super.destroy();
            shared.release(ConfigurationUtils.reCalShutdownTime(shutdownTimeout));
        }
    }
}
