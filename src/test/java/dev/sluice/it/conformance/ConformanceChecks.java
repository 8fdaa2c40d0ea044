package dev.sluice.it.conformance;

import static dev.sluice.it.conformance.Checks.asyncConcurrent;
import static dev.sluice.it.conformance.Checks.check;
import static dev.sluice.it.conformance.Checks.measure;
import static dev.sluice.it.conformance.Checks.require;

import dev.sluice.it.harness.Scenario;
import dev.sluice.it.rpc.model.Item;
import dev.sluice.it.rpc.model.TypesService;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.utils.NetUtils;
import org.apache.dubbo.rpc.service.EchoService;

/**
 * The bodies of the conformance {@link Check}s, written once against a {@link ClientSide} and a {@link ServerSide};
 * each reports its result lines through {@link Checks}. This class has the calls (value kinds, attachments,
 * payloads, async, one-way, versions, the UserService) and dispatches the checks of a connection's life and limits
 * to {@link ConnectionChecks}. A body that needs one kind of side (the standalone client's reference attachments)
 * casts to it: {@link Check} declares it applies only to the pairings that have that side.
 *
 * <p>Runs on the scenario's main thread, except {@link Check#HEARTBEAT}, which the scenario runs on a thread of its
 * own at the same time (see {@link ConnectionChecks}).
 */
final class ConformanceChecks {
    private final Pairing pairing;
    private final String host;
    private final ClientSide client;
    private final ServerSide server;
    private final ConnectionChecks connection;
    private final TimeoutFailoverChecks timeoutFailover;

    ConformanceChecks(Pairing pairing, String host, ClientSide client, ServerSide server) {
        this.pairing = pairing;
        this.host = host;
        this.client = client;
        this.server = server;
        this.connection = new ConnectionChecks(pairing, host, client, server);
        this.timeoutFailover = new TimeoutFailoverChecks(pairing, host);
    }

    /** Runs {@code check} (not {@link Check#START} or {@link Check#STOP}, which the scenario reports). */
    void run(Check check) {
        TypesService s = client.types();
        switch (check) {
            case TYPES:
                Checks.types(s);
                break;
            case USERS:
                UserServiceChecks.run(client.users(), Pairing.LOAD_THREADS, pairing.loadCallsPerThread());
                break;
            case PAYLOAD_LIMIT:
                measure(check.resultName(), connection::payloadLimit);
                break;
            case CLIENT_LIMIT:
                measure(check.resultName(), connection::clientLimit);
                break;
            case TIMEOUT:
                measure(check.resultName(), timeoutFailover::timeout);
                break;
            case FAILOVER:
                measure(check.resultName(), timeoutFailover::failover);
                break;
            case HEARTBEAT:
                measure(check.resultName(), connection::heartbeat);
                break;
            case READONLY_WRITEABLE:
                connection.readonlyAndWriteable(s);
                break;
            case GRACEFUL_CLOSE:
                connection.gracefulClose(s);
                break;
            case RESTART:
                measure(check.resultName(), connection::restart);
                break;
            default:
                check(check.resultName(), call(check, s));
        }
    }

    /** The body of a check of calls through {@code s} that prints one result line. */
    private Checks.Body call(Check check, TypesService s) {
        switch (check) {
            case ATTACHMENTS_TO_PROVIDER:
                return () -> {
                    client.attach("trace-id", "abc-123");
                    String seen = s.attachment("trace-id");
                    require("abc-123".equals(seen), "the provider saw trace-id=" + seen);
                };
            case ATTACHMENTS_FROM_PROVIDER:
                return () -> {
                    client.attach("trace-id", "def-456");
                    s.attachment("trace-id");
                    Object served = client.responseAttachment("served");
                    require("yes:def-456".equals(served), "the caller's response attachments have served=" + served);
                    for (Map.Entry<String, String> own : server.ownResponseAttachments().entrySet()) {
                        Object value = client.responseAttachment(own.getKey());
                        require(own.getValue().equals(value), "no " + own.getKey() + "=" + own.getValue()
                                + " from the provider: " + own.getKey() + "=" + value);
                    }
                };
            case ATTACHMENTS_FIXED:
                return () -> {
                    TypesService fixed = ((SluiceClientSide) client).client.reference(TypesService.class)
                            .attachment("fixed", "f").proxy();
                    require("f".equals(fixed.attachment("fixed")), "fixed attachment not sent");
                    require("f".equals(fixed.attachment("fixed")), "fixed attachment not sent again");
                };
            case ATTACHMENTS_DUBBO_BUILTIN:
                return () -> {
                    String app = s.attachment("remote.application");
                    require(ClientSide.APPLICATION.equals(app), "remote.application=" + app);
                    String iface = s.attachment("interface");
                    require(TypesService.class.getName().equals(iface), "interface=" + iface);
                };
            case ATTACHMENTS_PER_CALL:
                return () -> {
                    client.attach("once", "1");
                    require("1".equals(s.attachment("once")), "first call did not carry the attachment");
                    String again = s.attachment("once");
                    require(again == null, "an attachment of the previous call leaked into the next: " + again);
                };
            case ATTACHMENTS_VALUES:
                return () -> attachmentValues(s);
            case PAYLOAD_LARGE:
                return () -> {
                    String big = Checks.largeText();
                    require(big.equals(s.echo(big)), "large string changed on the way");
                };
            case PAYLOAD_MANY:
                return () -> {
                    List<Item> items = s.items(5_000);
                    require(items.size() == 5_000 && "item4999".equals(items.get(4_999).getName()),
                            "got " + items.size() + " items");
                };
            case ASYNC_CONCURRENT:
                return () -> asyncConcurrent(s);
            case ONE_WAY:
                return () -> {
                    s.fire("go");
                    require(server.types().fired.await(5, TimeUnit.SECONDS),
                            "the one-way call never ran on the provider");
                    client.requireNothingPending();
                };
            case VERSION_ROUTING:
                return () -> {
                    require("x".equals(s.echo("x")), "unversioned");
                    require("v1:x".equals(client.types("1.0", null).echo("x")),
                            "version 1.0 not routed to its implementation");
                    require("v2a:x".equals(client.types("2.0", "a").echo("x")), "version 2.0 group a not routed");
                };
            case VERSION_UNKNOWN:
                return () -> {
                    try {
                        String answer = client.types("3.0", null).echo("x");
                        throw new AssertionError("an unknown version answered " + answer);
                    } catch (RuntimeException e) {
                        client.requireTypedRefusal(e);
                        require(String.valueOf(e.getMessage()).contains("3.0"),
                                "message does not name the version: " + e.getMessage());
                        require("still".equals(s.echo("still")), "the connection broke after the refused call");
                    }
                };
            case ECHO_SERVICE:
                return () -> {
                    // Every Dubbo proxy implements EchoService; $echo is Dubbo's built-in liveness call.
                    Object answer = ((EchoService) s).$echo("ping");
                    require("ping".equals(answer), "$echo answered " + answer);
                };
            default:
                throw new IllegalArgumentException("not a check body: " + check);
        }
    }

    private void attachmentValues(TypesService s) {
        for (String value : Checks.ATTACHMENT_VALUES) {
            client.attach("v", value);
            String seen = s.attachment("v");
            require(value.equals(seen), "sent " + Checks.abbreviate(value) + ", the provider saw "
                    + Checks.abbreviate(seen));
            Object served = client.responseAttachment("served");
            require(("yes:" + value).equals(served), "response attachment "
                    + Checks.abbreviate(String.valueOf(served)));
        }
        client.attach("n", 42);
        String seen = s.attachment("n");
        require("42".equals(seen), "an Integer attachment arrived as " + seen);
    }

    /** Reports {@link Check#START} after a first call and a look at which transports carry it. */
    void start(long t0) {
        require(client.users().existUser("x9"), "first call returned false");
        // Which transports really carry the calls: their event-loop threads are running.
        require(threadRuns(server.eventLoopThread()), "no event-loop thread of the server ("
                + server.eventLoopThread() + "…) is running");
        require(threadRuns(client.eventLoopThread()), "no event-loop thread of the client ("
                + client.eventLoopThread() + "…) is running");
        // The consumer lever answers every refer itself: no Dubbo exchange client, so no netty4 client loop.
        require(!pairing.lever() || !threadRuns("NettyClientWorker"), "a Dubbo netty4 client is running: the"
                + " sluice.consumer=fast reference went through Dubbo's own exchange layer");
        Scenario.ok(Check.START.resultName(), "ms", ConnectionChecks.millisSince(t0), "pairing", pairing.name(),
                "port", server.port(), "network", Scenario.network(), "host", host,
                "dubboLocalHost", NetUtils.getLocalHost());
    }

    private static boolean threadRuns(String namePrefix) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith(namePrefix));
    }
}
