package dev.sluice.it.dubbo27;

import dev.sluice.it.generic.GenericCases;
import dev.sluice.it.rpc.model.TypesChecks;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The result names of the Dubbo 2.7 interop run, shared by {@link Dubbo27ConsumerInteropTest} (which requires every
 * one), {@link Dubbo27HostScenario} and {@link Dubbo27ConsumerScenario}. References no Dubbo or Sluice class: it is
 * loaded in all three JVMs (test classpath and the Dubbo 2.7.23 classpath).
 *
 * <p>Checks that cannot pass on Dubbo 2.7 for a reason outside Sluice are declared in {@link #NOT_ON_DUBBO_27} with
 * that reason. They still run: the consumer reports each as {@code ok} with {@code skipped=declared} only when it
 * fails, and as {@code FAIL} when it passes, so a stale entry is noticed.
 */
final class Dubbo27Checks {
    /** The consumer's results are relayed by the host with this prefix. */
    static final String CONSUMER = "dubbo27.";

    // Consumer side (names as the consumer prints them, without the prefix).
    static final String START = "start";
    static final String TYPES = "types.";
    static final String ATTACHMENTS_TO_PROVIDER = "attachments.consumer-to-provider";
    static final String ATTACHMENTS_FROM_PROVIDER = "attachments.provider-to-consumer";
    static final String ATTACHMENTS_DUBBO_BUILTIN = "attachments.dubbo-builtin";
    static final String ATTACHMENTS_PER_CALL = "attachments.per-call";
    static final String ATTACHMENTS_VALUES = "attachments.value-kinds";
    static final String PAYLOAD_LARGE = "payload.large-string";
    static final String PAYLOAD_MANY = "payload.many-pojos";
    static final String ECHO_SERVICE = "echo-service";
    static final String ONE_WAY = "one-way.sent";
    static final String VERSION_GROUP = "version-group.routing";
    static final String VERSION_UNKNOWN = "version-group.unknown";
    /** Prefix of the generic-call cases ({@code GenericCases.CASES}), called with {@code generic=true} in hessian2. */
    static final String GENERIC = "generic.hessian2";
    static final String USERS_EXIST = "users.existUser";
    static final String USERS_CREATE = "users.createUser";
    static final String USERS_GET = "users.getUser";
    static final String USERS_LIST = "users.listUser";
    static final String USERS_LOAD = "users.load-concurrent";
    static final String READONLY_UNAVAILABLE = "readonly.invoker-unavailable";
    static final String READONLY_NEW_CALL = "readonly.new-call-fails";
    static final String READONLY_IN_FLIGHT = "readonly.in-flight-complete";
    /** The consumer's own leak gate ({@code Scenario.LEAK_GATE}), relayed. */
    static final String CONSUMER_LEAK_GATE = "leak-gate";

    // Host side.
    static final String HOST_START = "host.start";
    static final String HOST_ONE_WAY_RAN = "host.one-way-ran";
    static final String HOST_CLOSE_FINISHED = "host.readonly-close-finished";
    static final String HOST_CONSUMER_EXIT = "host.consumer-exit";
    static final String HOST_GADGET_NEVER_LOADED = "host.generic-gadget-never-loaded";

    /**
     * Checks known not to work on Dubbo 2.7.23 for a reason outside Sluice, with the reason: name (as the consumer
     * prints it) to reason.
     */
    static final Map<String, String> NOT_ON_DUBBO_27 = Map.of();

    /** Control lines between the consumer (stdout) and the host (the consumer's stdin). */
    static final String CONTROL = "CONTROL ";
    static final String CONTROL_CLOSE = "close-gracefully";
    static final String CONTROL_RELEASE = "release-in-flight";
    static final String CONTROL_RELEASE_LAST = "release-last";
    static final String REPLY_CLOSING = "closing";
    static final String REPLY_RELEASED = "released";
    /** The one-way call the closing server holds until the consumer has its four answers. */
    static final String HOLD = "hold";

    /** Every consumer result, in the order it reports them, without the prefix. */
    static final List<String> CONSUMER_CHECKS = consumerChecks();
    /** Every result the host JVM prints (its own and the relayed consumer results), all required. */
    static final List<String> ALL = all();

    private Dubbo27Checks() {
    }

    private static List<String> consumerChecks() {
        List<String> names = new ArrayList<>(List.of(START));
        for (String check : TypesChecks.checks().keySet()) {
            names.add(TYPES + check);
        }
        names.addAll(List.of(ATTACHMENTS_TO_PROVIDER, ATTACHMENTS_FROM_PROVIDER, ATTACHMENTS_DUBBO_BUILTIN,
                ATTACHMENTS_PER_CALL, ATTACHMENTS_VALUES, PAYLOAD_LARGE, PAYLOAD_MANY, ECHO_SERVICE, ONE_WAY,
                VERSION_GROUP, VERSION_UNKNOWN));
        for (String check : GenericCases.CASES) {
            names.add(GENERIC + "." + check);
        }
        names.addAll(List.of(USERS_EXIST, USERS_CREATE, USERS_GET, USERS_LIST, USERS_LOAD,
                READONLY_UNAVAILABLE, READONLY_NEW_CALL, READONLY_IN_FLIGHT, CONSUMER_LEAK_GATE));
        return Collections.unmodifiableList(names);
    }

    private static List<String> all() {
        List<String> names = new ArrayList<>(List.of(HOST_START));
        for (String check : CONSUMER_CHECKS) {
            names.add(CONSUMER + check);
        }
        names.addAll(List.of(HOST_ONE_WAY_RAN, HOST_CLOSE_FINISHED, HOST_CONSUMER_EXIT, HOST_GADGET_NEVER_LOADED));
        return Collections.unmodifiableList(names);
    }
}
