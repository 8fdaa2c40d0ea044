package dev.sluice.dubbo;

import java.util.Locale;

/**
 * Where the Dubbo adapter records its per-call timers, without naming a metrics library: {@link CallClock} only
 * sees this interface, and the one implementation that touches Micrometer ({@link MicrometerCallMeters}) is loaded
 * only when {@code sluice.metrics} is set. Implementations are thread-safe and never block.
 */
interface CallMeters {
    /** The tag value of a service or method the local side cannot vouch for (keeps tag cardinality bounded). */
    String UNKNOWN = "unknown";

    /** The tag value of a group or version the service does not have, and of an application without a name. */
    String NONE = "";

    /**
     * The timers of one method of one service (its interface, group and version) of one application, created on
     * first use and cached. Callers pass only names the local side registered or chose, or {@link #UNKNOWN} /
     * {@link #NONE}; never null.
     */
    Method method(String application, String service, String group, String version, String method);

    /** One method's timers by outcome. */
    interface Method {
        void record(Outcome outcome, long nanos);
    }

    /** How a call ended: the vocabulary of the standalone {@code MicrometerInterceptor}'s {@code outcome} tag. */
    enum Outcome {
        /** The service returned a value. */
        SUCCESS,
        /** The service threw its own exception (Dubbo status OK, the result carries the exception). */
        APPLICATION_EXCEPTION,
        /** The call timed out: Dubbo's timeout status, or (client) no response within the call's timeout. */
        TIMEOUT,
        /** Anything else: an error status, a lost connection, a request or response not sent. */
        FAILURE;

        /** The tag value, computed once. */
        final String tag = name().toLowerCase(Locale.ROOT);
    }
}
