package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import dev.sluice.it.reliability.HostileAttacks.Attack;
import dev.sluice.it.reliability.HostileAttacks.Result;
import dev.sluice.it.reliability.HostileAttacks.Target;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/reliability.md H31: a hostile peer's attacks as real bytes on real sockets against a real server, each
 * measured for what it cost per byte sent: loop CPU, process CPU, loop allocation, heap and direct memory held, log
 * lines; and a well-behaved peer on the same (only) event loop must be answered promptly throughout, and the server
 * must serve afterwards. The bounds are {@link HostileBounds}. Standalone {@link SluiceServer} on NIO and epoll in
 * this JVM, every attack; Dubbo 3.3.6 with {@code server=sluice} on NIO and epoll in a child JVM
 * ({@link HostileScenario}), the attacks on the transport (inside Dubbo, Dubbo's own codec decodes the bodies).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostilePeerTest {

    static Stream<Arguments> standalone() {
        List<Arguments> cases = new ArrayList<>();
        for (NativeTransport kind : List.of(NativeTransport.NIO, NativeTransport.EPOLL)) {
            for (Attack attack : Attack.values()) {
                cases.add(Arguments.of(kind, attack));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("standalone")
    void anAttackCostsASluiceServerLittlePerByteAndOthersAreStillServed(NativeTransport kind, Attack attack)
            throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0)
                .options(Fixtures.on(kind).ioThreads(1).pendingBytesCap(HostileBounds.PENDING_CAP).build())
                .frameTimeout(Duration.ofMillis(HostileBounds.FRAME_TIMEOUT_MILLIS))
                .register(HostileService.class, new HostileService.Impl()).start()) {
            Target target = new Target("127.0.0.1", server.port(), "sluice-server",
                    HostileBounds.FRAME_TIMEOUT_MILLIS);
            HostileScenario.warmUp(target, HostileService.class.getName());
            Result r = HostileAttacks.run(attack, target, HostileService.class.getName());
            System.out.println("hostile standalone " + kind + ": " + r);
            List<String> violations = HostileBounds.violations(r);
            assertTrue(violations.isEmpty(), kind + " " + attack + ": " + violations + "\n" + r);
        }
    }

    @Test
    void theSameAttacksThroughTheSluiceTransporterInsideDubbo() throws Exception {
        List<String> args = new ArrayList<>(List.of("adapter"));
        for (NativeTransport kind : List.of(NativeTransport.NIO, NativeTransport.EPOLL)) {
            if (EventLoops.resolve(kind) == kind) {
                args.add(kind.name());
            }
        }
        ChildResult result = IsolatedJvm.of(HostileScenario.class).name("hostile-adapter")
                .jvmFlags("-Xmx1g", "-XX:MaxDirectMemorySize=512m")
                .args(args.toArray(new String[0])).timeout(Duration.ofSeconds(100)).run();
        System.out.println("hostile adapter: " + result);
        List<String> required = new ArrayList<>();
        for (String kind : args.subList(1, args.size())) {
            for (Attack attack : HostileScenario.ADAPTER_ATTACKS) {
                required.add("adapter." + kind + "." + attack);
            }
        }
        required.add(Scenario.LEAK_GATE);
        result.assertPassed(required.toArray(new String[0]));
    }
}
