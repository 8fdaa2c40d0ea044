package dev.sluice.rpc;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a chain of interceptors for one invocation. Called on the thread that runs the call (see the interface). */
final class Interceptors {
    private static final Logger log = LoggerFactory.getLogger(Interceptors.class);
    static final SluiceInterceptor[] NONE = new SluiceInterceptor[0];

    private Interceptors() {
    }

    static SluiceInterceptor[] of(List<SluiceInterceptor> list) {
        return list.isEmpty() ? NONE : list.toArray(new SluiceInterceptor[0]);
    }

    /**
     * Runs every {@code onCall} in order. When one throws, the ones before it get {@code onComplete} with the
     * failure, and the {@link InterceptorException} is thrown.
     */
    static void before(SluiceInterceptor[] chain, Invocation inv) {
        for (SluiceInterceptor i : chain) {
            try {
                i.onCall(inv);
            } catch (Throwable t) { // NOPMD: whatever an interceptor throws fails this call, typed
                InterceptorException e = new InterceptorException(i.getClass().getName(), "Not "
                        + (inv.side() == Invocation.Side.CLIENT ? "sent" : "invoked") + ": interceptor "
                        + i.getClass().getName() + " threw in onCall for " + inv + ": " + t, t);
                Outcome outcome = new Outcome(Outcome.Kind.FAILURE, null, e, 0, System.nanoTime() - inv.startNanos());
                InterceptorException later = after(chain, inv, outcome);
                if (later != null) {
                    e.addSuppressed(later);
                }
                throw e;
            }
            inv.entered++;
        }
    }

    /**
     * Runs {@code onComplete} in reverse order for every interceptor whose {@code onCall} returned, once per
     * invocation. Returns what to fail the call with when one of them threw, else {@code null}.
     */
    static InterceptorException after(SluiceInterceptor[] chain, Invocation inv, Outcome outcome) {
        if (inv.completed) {
            return null;
        }
        inv.completed = true;
        InterceptorException failure = null;
        for (int k = inv.entered - 1; k >= 0; k--) {
            SluiceInterceptor i = chain[k];
            try {
                i.onComplete(inv, outcome);
            } catch (Throwable t) { // NOPMD: every interceptor sees the outcome; the first throw fails the call
                if (failure == null) {
                    failure = new InterceptorException(i.getClass().getName(), "Interceptor " + i.getClass().getName()
                            + " threw in onComplete for " + inv + " after the call ended with " + outcome + ": " + t,
                            t);
                    if (outcome.exception() != null) {
                        failure.addSuppressed(outcome.exception());
                    }
                } else {
                    failure.addSuppressed(t);
                }
                log.debug("Interceptor {} threw in onComplete for {}", i.getClass().getName(), inv, t);
            }
        }
        return failure;
    }
}
