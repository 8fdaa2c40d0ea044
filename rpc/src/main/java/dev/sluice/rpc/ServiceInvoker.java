package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Connection;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The application half of a {@link SluiceServer}: runs one decoded request's service method through the
 * interceptors and answers with its value or exception.
 *
 * <p>Threads: {@link #invoke} runs on the server's service executor (the event loop only with
 * {@code directExecutor()}); an asynchronous method's answer is sent by whichever thread completes its
 * {@link CompletionStage}. It reads no connection state, and replies through {@link Replies}, which any thread may.
 */
final class ServiceInvoker {
    /** Empty (and then never touched on a call) when no interceptor is registered. */
    private final SluiceInterceptor[] interceptors;
    private final Replies replies;
    private final InFlight calls;

    ServiceInvoker(SluiceInterceptor[] interceptors, Replies replies, InFlight calls) {
        this.interceptors = interceptors;
        this.replies = replies;
        this.calls = calls;
    }

    void invoke(Connection connection, DubboRequest request, Object impl, Method method) {
        SluiceContext ctx = SluiceContext.current();
        Invocation inv = null;
        boolean async = false;
        try {
            if (interceptors.length == 0) {
                ctx.setIncoming(request.attachments());
            } else {
                inv = new Invocation(Invocation.Side.SERVER, request.servicePath(), request.serviceVersion(),
                        request.group(), request.methodName(), request.arguments(),
                        new HashMap<>(request.attachments()), !request.isTwoWay(),
                        CompletionStage.class.isAssignableFrom(method.getReturnType()));
                ctx.setIncoming(inv.attachments());
                try {
                    Interceptors.before(interceptors, inv);
                } catch (InterceptorException e) {
                    replies.answer(connection, request, DubboResponse.replyError(request,
                            DubboConstants.STATUS_SERVICE_ERROR, e.getMessage()));
                    return;
                }
            }
            Object result = method.invoke(impl, request.arguments());
            Map<String, Object> extra = ctx.takeResponseAttachments();
            if (result instanceof CompletionStage && CompletionStage.class.isAssignableFrom(method.getReturnType())) {
                async = true;
                Invocation stageInv = inv;
                ((CompletionStage<?>) result).whenComplete((value, error) -> {
                    try {
                        if (error != null) {
                            Throwable cause = error instanceof java.util.concurrent.CompletionException
                                    && error.getCause() != null ? error.getCause() : error;
                            replies.answer(connection, request, outcome(stageInv, request, null, cause, extra));
                        } else {
                            replies.answer(connection, request, outcome(stageInv, request, value, null, extra));
                        }
                    } finally {
                        calls.finished();
                    }
                });
                return;
            }
            replies.answer(connection, request, outcome(inv, request, result, null, extra));
        } catch (InvocationTargetException e) {
            replies.answer(connection, request,
                    outcome(inv, request, null, e.getCause(), ctx.takeResponseAttachments()));
        } catch (Throwable t) {
            String text = "Failed to invoke " + method + ": " + t;
            if (inv != null) {
                InterceptorException failure = Interceptors.after(interceptors, inv, new Outcome(
                        Outcome.Kind.FAILURE, null, t, DubboConstants.STATUS_SERVICE_ERROR,
                        System.nanoTime() - inv.startNanos()));
                if (failure != null) {
                    text += "; then " + failure.getMessage();
                }
            }
            replies.answer(connection, request,
                    DubboResponse.replyError(request, DubboConstants.STATUS_SERVICE_ERROR, text));
        } finally {
            ctx.clearServer();
            if (!async) {
                calls.finished();
            }
        }
    }

    /**
     * The response for a service's value or exception, after the interceptors (when any) saw it; an interceptor
     * that threw in {@code onComplete} turns it into a {@code SERVICE_ERROR} naming it.
     */
    private DubboResponse outcome(Invocation inv, DubboRequest request, Object value, Throwable error,
                                  Map<String, Object> extra) {
        if (inv != null) {
            InterceptorException failure = Interceptors.after(interceptors, inv, new Outcome(
                    error == null ? Outcome.Kind.SUCCESS : Outcome.Kind.APPLICATION_EXCEPTION, value, error,
                    DubboConstants.STATUS_OK, System.nanoTime() - inv.startNanos()));
            if (failure != null) {
                return DubboResponse.replyError(request, DubboConstants.STATUS_SERVICE_ERROR, failure.getMessage()
                        + ". The call was executed.");
            }
        }
        return Replies.withAttachments(request, value, error, extra);
    }
}
