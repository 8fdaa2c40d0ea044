package dev.sluice.it.reliability;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import dev.sluice.it.reliability.HostileAttacks.Attack;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md H35: a hostile peer's attacks as real bytes on real sockets against a real server, each
 * measured for what it cost per byte sent: loop CPU, process CPU, loop allocation, heap and direct memory held, log
 * lines; and a well-behaved peer on the same (only) event loop must be answered promptly throughout, and the server
 * must serve afterwards. The bounds are {@link HostileBounds}; the attacks and the measuring {@link HostileAttacks}.
 * A standalone {@link SluiceServer} on NIO and on epoll, every attack; Dubbo 3.3.6 with {@code server=sluice} on NIO
 * and epoll, every attack but the hessian2 type names (inside Dubbo, Dubbo's own codec decodes the bodies once the
 * adapter's body check has walked them, and Dubbo's own serialize-security check judges type names).
 *
 * <p>Each server runs in a child JVM ({@link HostileScenario}), with Netty's leak detector at {@code simple}: at
 * {@code paranoid}, the level of the test JVMs, it records a stack trace at every access to a tracked buffer, and a
 * decode that reads a frame byte by byte then costs a megabyte of allocation and milliseconds of CPU per frame, so
 * the figures would measure the detector, not the server. The child still runs the recording leak gate.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostilePeerTest {

    private static ChildResult run(String name, List<String> args, List<String> required) throws Exception {
        ChildResult result = IsolatedJvm.of(HostileScenario.class).name(name)
                .jvmFlags("-Xmx1g", "-XX:MaxDirectMemorySize=512m", "-Dio.netty.leakDetection.level=simple")
                .args(args.toArray(new String[0])).timeout(Duration.ofSeconds(110)).run();
        System.out.println(name + ": " + result);
        List<String> all = new ArrayList<>(required);
        all.add(Scenario.LEAK_GATE);
        return result.assertPassed(all.toArray(new String[0]));
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void everyAttackCostsASluiceServerLittlePerByteAndOthersAreStillServed(NativeTransport kind) throws Exception {
        Assumptions.assumeTrue(EventLoops.resolve(kind) == kind, kind + " is not available on this machine");
        List<String> required = new ArrayList<>();
        for (Attack attack : Attack.values()) {
            required.add("sluice." + kind + "." + attack);
        }
        run("hostile-sluice-" + kind, List.of("sluice", kind.name()), required);
    }

    @Test
    void theTransportAndBodyAttacksCostDubboWithTheSluiceTransporterLittlePerByte() throws Exception {
        List<String> args = new ArrayList<>(List.of("adapter"));
        List<String> required = new ArrayList<>();
        for (NativeTransport kind : List.of(NativeTransport.NIO, NativeTransport.EPOLL)) {
            if (EventLoops.resolve(kind) == kind) {
                args.add(kind.name());
                for (Attack attack : HostileScenario.ADAPTER_ATTACKS) {
                    required.add("adapter." + kind + "." + attack);
                }
            }
        }
        run("hostile-adapter", args, required);
    }
}
