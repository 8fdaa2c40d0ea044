package dev.sluice.it.reliability;

import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import java.time.Duration;

/**
 * Run by {@link TransportMatrixTest} in a child JVM started with {@code -Dio.netty.transport.noNative=true}, as on a
 * machine without the native libraries: asks for epoll and io_uring, and checks a call works on the NIO fallback.
 * Prints one line, {@code FALLBACK epoll->X io_uring->Y echo=Z}; exits non-zero on failure.
 */
public final class NativeFallbackMain {
    private NativeFallbackMain() {
    }

    public static void main(String[] args) {
        NativeTransport epoll = EventLoops.resolve(NativeTransport.EPOLL);
        NativeTransport uring = EventLoops.resolve(NativeTransport.IO_URING);
        TransportOptions options = TransportOptions.builder().nativeTransport(NativeTransport.EPOLL).build();
        String echo;
        try (SluiceServer server = SluiceServer.builder().port(0).options(options)
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port()).options(options)
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build()) {
            echo = client.proxy(TypesService.class).echo("works");
        }
        System.out.println("FALLBACK epoll->" + epoll + " io_uring->" + uring + " echo=" + echo);
        System.exit(epoll == NativeTransport.NIO && uring == NativeTransport.NIO && "works".equals(echo) ? 0 : 1);
    }
}
