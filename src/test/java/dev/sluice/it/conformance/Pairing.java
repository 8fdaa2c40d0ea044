package dev.sluice.it.conformance;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The pairings the conformance suite runs against: who calls (the standalone {@code SluiceClient} or a real Dubbo
 * 3.3.6 consumer over a named Transporter) and who answers (a real Dubbo provider over a named Transporter, or the
 * standalone {@code SluiceServer}). Which {@link Check}s apply to a pairing is declared by the checks themselves
 * ({@link Check#appliesTo}); {@link #checks()} lists them in the order the child runs them.
 *
 * <p>Immutable; used in the test JVM (to know which results to require) and in the child JVM (to build the peers).
 */
public enum Pairing {
    /** The standalone client calling a Dubbo provider on Dubbo's own netty4 server. */
    SLUICE_CLIENT_TO_DUBBO_NETTY4(Caller.SLUICE_CLIENT, null, Answerer.DUBBO_PROVIDER, "netty4", 100),
    /** A Dubbo consumer on Dubbo's own netty4 client calling the standalone server. */
    DUBBO_NETTY4_TO_SLUICE_SERVER(Caller.DUBBO_CONSUMER, "netty4", Answerer.SLUICE_SERVER, null, 100),
    /** Dubbo consumer and provider both on the {@code sluice} Transporter. */
    DUBBO_SLUICE_TO_DUBBO_SLUICE(Caller.DUBBO_CONSUMER, "sluice", Answerer.DUBBO_PROVIDER, "sluice", 40),
    /** The {@code sluice} server under Dubbo's own netty4 consumer (the control on the client side). */
    DUBBO_NETTY4_TO_DUBBO_SLUICE(Caller.DUBBO_CONSUMER, "netty4", Answerer.DUBBO_PROVIDER, "sluice", 40),
    /**
     * The {@code sluice} client against Dubbo's own netty4 provider (the control on the server side), selected as
     * docs/guide/dubbo.md says, with the system property {@code dubbo.consumer.client=sluice} and no client on the
     * reference.
     */
    DUBBO_SLUICE_BY_PROPERTY_TO_DUBBO_NETTY4(Caller.DUBBO_CONSUMER, DubboNodes.CLIENT_BY_PROPERTY,
            Answerer.DUBBO_PROVIDER, "netty4", 40),
    /** The standalone client in hessian2 calling a Dubbo provider left at Dubbo's default serialization. */
    SLUICE_CLIENT_HESSIAN2_TO_DUBBO_DEFAULTS(Caller.SLUICE_CLIENT, null, Answerer.DUBBO_PROVIDER, "netty4", 100, null),
    /** A Dubbo consumer left at its defaults (hessian2, no serialization setting) calling the standalone server. */
    DUBBO_DEFAULTS_TO_SLUICE_SERVER(Caller.DUBBO_CONSUMER, "netty4", Answerer.SLUICE_SERVER, null, 100, null),
    /** Dubbo consumer and provider both on the {@code sluice} Transporter, with Dubbo's default serialization. */
    DUBBO_SLUICE_TO_DUBBO_SLUICE_DEFAULTS(Caller.DUBBO_CONSUMER, "sluice", Answerer.DUBBO_PROVIDER, "sluice", 40,
            null),
    /** The consumer lever ({@code sluice.consumer=fast}) calling Dubbo's own netty4 provider. */
    DUBBO_LEVER_TO_DUBBO_NETTY4(Caller.DUBBO_CONSUMER, DubboNodes.LEVER, Answerer.DUBBO_PROVIDER, "netty4", 40),
    /** The consumer lever calling a provider on the {@code sluice} Transporter. */
    DUBBO_LEVER_TO_DUBBO_SLUICE(Caller.DUBBO_CONSUMER, DubboNodes.LEVER, Answerer.DUBBO_PROVIDER, "sluice", 40),
    /** The consumer lever and a netty4 provider at Dubbo's default serialization (hessian2). */
    DUBBO_LEVER_TO_DUBBO_NETTY4_DEFAULTS(Caller.DUBBO_CONSUMER, DubboNodes.LEVER, Answerer.DUBBO_PROVIDER, "netty4",
            40, null),
    /** The consumer lever and a {@code sluice} provider at Dubbo's default serialization (hessian2). */
    DUBBO_LEVER_TO_DUBBO_SLUICE_DEFAULTS(Caller.DUBBO_CONSUMER, DubboNodes.LEVER, Answerer.DUBBO_PROVIDER, "sluice",
            40, null);

    /** The calling side. */
    enum Caller { SLUICE_CLIENT, DUBBO_CONSUMER }

    /** The answering side. */
    enum Answerer { DUBBO_PROVIDER, SLUICE_SERVER }

    /** Threads of the UserService load. */
    static final int LOAD_THREADS = 32;

    private final Caller caller;
    private final String clientTransporter;
    private final Answerer answerer;
    private final String serverTransporter;
    private final int loadCallsPerThread;
    private final String serialization;

    Pairing(Caller caller, String clientTransporter, Answerer answerer, String serverTransporter,
            int loadCallsPerThread) {
        this(caller, clientTransporter, answerer, serverTransporter, loadCallsPerThread, "fastjson2");
    }

    /** @param serialization what the Dubbo peers set ({@code serialization=}); null leaves Dubbo's default, hessian2 */
    Pairing(Caller caller, String clientTransporter, Answerer answerer, String serverTransporter,
            int loadCallsPerThread, String serialization) {
        this.serialization = serialization;
        this.caller = caller;
        this.clientTransporter = clientTransporter;
        this.answerer = answerer;
        this.serverTransporter = serverTransporter;
        this.loadCallsPerThread = loadCallsPerThread;
    }

    boolean sluiceClient() {
        return caller == Caller.SLUICE_CLIENT;
    }

    boolean dubboConsumer() {
        return caller == Caller.DUBBO_CONSUMER;
    }

    boolean dubboProvider() {
        return answerer == Answerer.DUBBO_PROVIDER;
    }

    boolean sluiceServer() {
        return answerer == Answerer.SLUICE_SERVER;
    }

    /** A Dubbo consumer whose Transporter is {@code sluice} (named on the reference or by system property). */
    boolean dubboConsumerOnSluice() {
        return dubboConsumer() && clientTransporter.startsWith("sluice");
    }

    /** A Dubbo consumer with the consumer lever ({@code sluice.consumer=fast}). */
    boolean lever() {
        return DubboNodes.LEVER.equals(clientTransporter);
    }

    /** The Dubbo consumer's {@code client=} Transporter (or {@value DubboNodes#CLIENT_BY_PROPERTY}); null if none. */
    String clientTransporter() {
        return clientTransporter;
    }

    /** The Dubbo provider's {@code server=} Transporter; null for the standalone server. */
    String serverTransporter() {
        return serverTransporter;
    }

    /** The Dubbo peers' {@code serialization=} setting; null when they are left at Dubbo's default (hessian2). */
    String dubboSerialization() {
        return serialization;
    }

    /** What the calls travel in: the setting, or Dubbo 3.3's default. */
    String wireSerialization() {
        return serialization == null ? "hessian2" : serialization;
    }

    /** Calls per thread of the UserService load ({@value #LOAD_THREADS} threads). */
    int loadCallsPerThread() {
        return loadCallsPerThread;
    }

    /** The checks that apply to this pairing, in the order the child runs them. */
    List<Check> checks() {
        List<Check> checks = new ArrayList<>();
        for (Check check : Check.values()) {
            if (check.appliesTo(this)) {
                checks.add(check);
            }
        }
        return Collections.unmodifiableList(checks);
    }

    /** Every result line the child prints for this pairing, in order (the leak gate not included). */
    List<String> resultNames() {
        List<String> names = new ArrayList<>();
        for (Check check : checks()) {
            names.addAll(check.resultNames());
        }
        return names;
    }

    @Override
    public String toString() {
        String client = sluiceClient() ? "SluiceClient" : lever() ? "Dubbo consumer (sluice.consumer=fast)"
                : "Dubbo consumer (" + clientTransporter + ")";
        String server = sluiceServer() ? "SluiceServer" : "Dubbo provider (" + serverTransporter + ")";
        return client + " -> " + server + ", " + (serialization == null ? "Dubbo's default serialization"
                : serialization);
    }
}
