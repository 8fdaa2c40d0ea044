package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server keeps what it resolved a request's target to on the decoder's per-connection {@code DubboMethod}: calls of
 * the same method in different groups, versions and services, alternating on one connection, each reach their own
 * implementation; string arguments of every kind arrive as sent.
 */
@Timeout(60)
class ServerTargetTest {

    public interface Named {
        String name(String suffix);
    }

    public interface Other {
        String name(String suffix);
    }

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    /** Starts the server and a client connected to it; both are closed after the test. */
    private SluiceClient clientOf(SluiceServer.Builder builder) {
        SluiceServer server = builder.start();
        closeables.add(server);
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(10)).build();
        closeables.add(client);
        return client;
    }

    @Test
    void alternatingGroupsVersionsAndServicesOnOneConnectionEachReachTheirOwnImplementation() {
        SluiceClient client = clientOf(SluiceServer.builder().port(0)
                .register(Named.class, s -> "plain" + s)
                .register(Named.class, s -> "group-a" + s, null, "a")
                .register(Named.class, s -> "group-b" + s, null, "b")
                .register(Named.class, s -> "v2" + s, "2.0", null)
                .register(Other.class, s -> "other" + s));
        Named plain = client.proxy(Named.class);
        Named a = client.reference(Named.class).group("a").proxy();
        Named b = client.reference(Named.class).group("b").proxy();
        Named v2 = client.reference(Named.class).version("2.0").proxy();
        Other other = client.proxy(Other.class);
        for (int i = 0; i < 50; i++) {
            String s = "-" + i;
            assertEquals("group-a" + s, a.name(s));
            assertEquals("plain" + s, plain.name(s));
            assertEquals("group-b" + s, b.name(s));
            assertEquals("v2" + s, v2.name(s));
            assertEquals("other" + s, other.name(s));
            // a per-call group, sent as an attachment on top of the proxy's: the same target bytes, another group
            SluiceContext.current().setAttachment("group", (i & 1) == 0 ? "a" : "b");
            assertEquals(((i & 1) == 0 ? "group-a" : "group-b") + s, plain.name(s));
        }
    }

    @Test
    void stringArgumentsOfEveryKindArriveAsSent() {
        Named named = clientOf(SluiceServer.builder().port(0).register(Named.class, s -> s == null ? "(null)" : s))
                .proxy(Named.class);
        for (String s : new String[] {"", "a", "ascii", "x".repeat(200), "y".repeat(70_000), "Zoë", "北京",
            "mixed ascii and ünïcödé " + "z".repeat(100), "\u0000nul", "emoji \uD83D\uDE00"}) {
            assertEquals(s, named.name(s), "length " + s.length());
        }
        assertEquals("(null)", named.name(null));
    }
}
