package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.GenericException;
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
    /** The server's application name, for its invocations. */
    private final String applicationName;
    private final Replies replies;
    private final InFlight calls;

    private final GenericCalls genericCalls;

    ServiceInvoker(SluiceInterceptor[] interceptors, String applicationName, Replies replies, InFlight calls,
                   GenericCalls genericCalls) {
        this.interceptors = interceptors;
        this.applicationName = applicationName;
        this.replies = replies;
        this.calls = calls;
        this.genericCalls = genericCalls;
    }

    /**
     * Runs {@code method} for {@code request}; for a generic call ({@code generic} not null) with its arguments
     * converted from the generic form, its value converted to it and its exception answered as Dubbo's
     * {@link GenericException}. A generic argument that cannot be converted is answered with status 40 and the
     * method does not run.
     */
    void invoke(Connection connection, DubboRequest request, Object impl, Method method,
                GenericCalls.Target generic) {
        SluiceContext ctx = SluiceContext.current();
        Invocation inv = null;
        boolean async = false;
        try {
            Object[] args = request.arguments();
            if (generic != null) {
                try {
                    args = genericCalls.arguments(method, request);
                } catch (RuntimeException e) { // ClassNotAllowedException, IllegalArgumentException
                    replies.answer(connection, request, DubboResponse.replyError(request,
                            DubboConstants.STATUS_BAD_REQUEST, "Fail to convert the arguments of generic call "
                                    + request.servicePath() + "." + method.getName() + " due to: " + e.getMessage()));
                    return;
                }
            }
            if (interceptors.length == 0) {
                ctx.setIncoming(request.attachments());
            } else {
                inv = new Invocation(Invocation.Side.SERVER, applicationName, request.servicePath(),
                        request.serviceVersion(), request.group(), method.getName(), args,
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
            Object result = method.invoke(impl, args);
            Map<String, Object> extra = ctx.takeResponseAttachments();
            if (result instanceof CompletionStage && CompletionStage.class.isAssignableFrom(method.getReturnType())) {
                async = true;
                Invocation stageInv = inv;
                ((CompletionStage<?>) result).whenComplete((value, error) -> {
                    try {
                        if (error != null) {
                            Throwable cause = error instanceof java.util.concurrent.CompletionException
                                    && error.getCause() != null ? error.getCause() : error;
                            replies.answer(connection, request, outcome(stageInv, request, null, cause, extra,
                                    generic));
                        } else {
                            replies.answer(connection, request, outcome(stageInv, request, value, null, extra,
                                    generic));
                        }
                    } finally {
                        calls.finished();
                    }
                });
                return;
            }
            replies.answer(connection, request, outcome(inv, request, result, null, extra, generic));
        } catch (InvocationTargetException e) {
            replies.answer(connection, request,
                    outcome(inv, request, null, e.getCause(), ctx.takeResponseAttachments(), generic));
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
                                  Map<String, Object> extra, GenericCalls.Target generic) {
        if (inv != null) {
            InterceptorException failure = Interceptors.after(interceptors, inv, new Outcome(
                    error == null ? Outcome.Kind.SUCCESS : Outcome.Kind.APPLICATION_EXCEPTION, value, error,
                    DubboConstants.STATUS_OK, System.nanoTime() - inv.startNanos()));
            if (failure != null) {
                return DubboResponse.replyError(request, DubboConstants.STATUS_SERVICE_ERROR, failure.getMessage()
                        + ". The call was executed.");
            }
        }
        if (generic != null) {
            if (error != null) {
                // As Dubbo's GenericFilter: a GenericException the service threw itself goes out as it is.
                GenericException g = error instanceof GenericException ? (GenericException) error
                        : GenericException.of(error);
                return Replies.withAttachments(request, null, g, extra);
            }
            try {
                value = GenericCalls.result(generic, value);
            } catch (IllegalArgumentException e) {
                return DubboResponse.replyError(request, DubboConstants.STATUS_SERVICE_ERROR, "The result of generic"
                        + " call " + request.servicePath() + "." + generic.method.getName() + " cannot be converted"
                        + " to the generic form: " + e.getMessage() + ". The call was executed.");
            }
        }
        return Replies.withAttachments(request, value, error, extra);
    }
}
