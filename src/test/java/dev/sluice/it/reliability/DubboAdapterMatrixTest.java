package dev.sluice.it.reliability;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * F28 through the {@code sluice} Transporter: a real Dubbo 3.3.6 provider and consumer on {@code sluice.native=nio},
 * {@code epoll} and {@code io_uring} (each this machine has; NIO always): the provider's calls run on an event loop
 * of the kind asked for, concurrent calls and large answers complete, and a connection without Dubbo's magic is
 * closed while the consumer goes on. One child JVM runs every kind. See {@link DubboAdapterScenario}.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DubboAdapterMatrixTest {

    @Test
    void everyNativeTransportThisMachineHasCarriesTheAdapter() throws Exception {
        List<String> kinds = new ArrayList<>();
        for (NativeTransport kind : List.of(NativeTransport.NIO, NativeTransport.EPOLL, NativeTransport.IO_URING)) {
            if (EventLoops.resolve(kind) == kind) {
                kinds.add(kind.name());
            } else {
                System.out.println("adapter matrix: " + kind + " is not available on this machine, not run");
            }
        }
        List<String> args = new ArrayList<>(List.of("native"));
        args.addAll(kinds);
        ChildResult result = IsolatedJvm.of(DubboAdapterScenario.class)
                .name("adapter-matrix")
                .args(args.toArray(new String[0]))
                .timeout(Duration.ofSeconds(120))
                .run();
        System.out.println("adapter matrix " + kinds + ": " + result);
        List<String> required = new ArrayList<>();
        for (String kind : kinds) {
            required.add("native." + kind);
        }
        required.add(Scenario.LEAK_GATE);
        result.assertPassed(required.toArray(new String[0]));
    }
}
