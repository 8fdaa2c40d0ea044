package dev.sluice.it.conformance;

import java.util.List;
import java.util.function.Predicate;

/**
 * The checks of the conformance suite, in the order a child runs them, each with the result lines it prints and the
 * pairings it applies to. A check that does not apply to a pairing is not run there and not required of it; the
 * reason is the predicate below (a feature only one side has, or a limit only Dubbo's {@code payload} setting
 * imposes on both ends). The bodies are in {@link ConformanceChecks}.
 *
 * <p>Immutable.
 */
enum Check {
    START(p -> true, "start"),
    /** Every value kind of {@code TypesChecks}, one result each. */
    TYPES(p -> true, Checks.typesNames()),
    ATTACHMENTS_TO_PROVIDER(p -> true, "attachments.consumer-to-provider"),
    ATTACHMENTS_FROM_PROVIDER(p -> true, "attachments.provider-to-consumer"),
    /** {@code SluiceClient.Reference.attachment}: the standalone client's own API. */
    ATTACHMENTS_FIXED(Pairing::sluiceClient, "attachments.reference-fixed"),
    /**
     * {@code remote.application} and {@code interface}: attachments a Dubbo consumer adds by itself, as the standalone
     * server hands them to the service. (A Dubbo provider's ContextFilter keeps {@code interface} from its service.)
     */
    ATTACHMENTS_DUBBO_BUILTIN(p -> p.dubboConsumer() && p.sluiceServer(), "attachments.dubbo-builtin"),
    ATTACHMENTS_PER_CALL(p -> true, "attachments.per-call"),
    ATTACHMENTS_VALUES(p -> true, "attachments.value-kinds"),
    PAYLOAD_LARGE(p -> true, "payload.large-string"),
    PAYLOAD_MANY(p -> true, "payload.many-pojos"),
    ASYNC_CONCURRENT(p -> true, "async.concurrent"),
    ONE_WAY(p -> true, "one-way"),
    VERSION_ROUTING(p -> true, "version-group.routing"),
    VERSION_UNKNOWN(p -> true, "version-group.unknown"),
    /** {@code $echo}: every Dubbo consumer proxy implements Dubbo's {@code EchoService}. */
    ECHO_SERVICE(Pairing::dubboConsumer, "echo-service"),
    /** Dubbo's {@code payload} setting on both ends: the limit is Dubbo's, enforced by both Transporters. */
    PAYLOAD_LIMIT(p -> p.dubboConsumer() && p.dubboProvider(), "payload.limit"),
    /** A consumer's own smaller limit skips the oversized response; asked of the {@code sluice} client only. */
    CLIENT_LIMIT(p -> p.dubboConsumerOnSluice() && p.dubboProvider(), "payload.client-limit"),
    /**
     * A held call past the reference's timeout fails with Dubbo's timeout RpcException, synchronous and asynchronous;
     * on a provider and consumer of their own ({@link TimeoutFailoverChecks}).
     */
    TIMEOUT(p -> p.dubboConsumer() && p.dubboProvider(), "timeout.rpc-exception"),
    /** Two providers behind a failover cluster; one stops; every call is still answered, by the other. */
    FAILOVER(p -> p.dubboConsumer() && p.dubboProvider(), "failover.provider-down"),
    /**
     * On a server port and client connections of its own, idle for 2 s: the child runs it on a thread of its own
     * alongside the checks from {@link #TYPES} to here (their traffic never touches its connections), and waits for
     * it before the CPU-heavy UserService load, which could starve its heartbeats.
     */
    HEARTBEAT(p -> true, "heartbeat.connection-stays-up"),
    USERS(p -> true, UserServiceChecks.NAMES),
    /** Dubbo's readonly and writeable events without a close: the standalone client refuses, then calls again. */
    READONLY_WRITEABLE(p -> p.sluiceClient() && p.dubboProvider(), "readonly.client-stops-calling",
            "writeable.client-resumes"),
    /** A graceful close with calls in flight, seen through the Dubbo consumer's invoker availability. */
    GRACEFUL_CLOSE(Pairing::dubboConsumer, "readonly.invoker-unavailable", "readonly.new-call-fails",
            "readonly.in-flight-complete", "readonly.close-finished"),
    /**
     * A provider back on the same port: the {@code sluice} client, with {@code sluice.reconnect=fast}, reconnects by
     * itself (by default it keeps Dubbo's contract, as Dubbo's netty4 client does, and waits for Dubbo's 60 s
     * reconnect tick, too long for this suite).
     */
    RESTART(p -> p.dubboConsumerOnSluice() && p.dubboProvider(), "restart.consumer-recovers"),
    STOP(p -> true, "stop");

    private final Predicate<Pairing> appliesTo;
    private final List<String> resultNames;

    Check(Predicate<Pairing> appliesTo, String... resultNames) {
        this(appliesTo, List.of(resultNames));
    }

    Check(Predicate<Pairing> appliesTo, List<String> resultNames) {
        this.appliesTo = appliesTo;
        this.resultNames = List.copyOf(resultNames);
    }

    boolean appliesTo(Pairing pairing) {
        return appliesTo.test(pairing);
    }

    /** The result lines this check prints; the first is its name. */
    List<String> resultNames() {
        return resultNames;
    }

    /** The name of a check that prints one result line. */
    String resultName() {
        return resultNames.get(0);
    }
}
