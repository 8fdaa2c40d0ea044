package dev.sluice.it.reliability;

import dev.sluice.it.harness.DubboPeers;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * A Dubbo 3.3.6 consumer process for {@link DubboAdapterScenario}'s frozen-consumer case, which starts it, stops it
 * with SIGSTOP, continues it and kills it. Arguments: host, port, callers, response size in chars. Each caller calls
 * {@link BlobService#blob} in a loop on Dubbo's netty4 client (one connection), so responses stream to it all the
 * time; it prints {@code DONE <n>} after every 16 answers (n: answers so far), and runs until it is killed.
 */
public final class FrozenConsumerMain {
    private FrozenConsumerMain() {
    }

    public static void main(String[] args) throws Exception {
        DubboPeers.quietDefaults();
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        int callers = Integer.parseInt(args[2]);
        int chars = Integer.parseInt(args[3]);
        ReferenceConfig<BlobService> reference = DubboPeers.reference(BlobService.class, host, port, 30_000);
        reference.setConnections(1);
        DubboBootstrap.getInstance()
                .application(DubboPeers.application("frozen-consumer"))
                .registry(DubboPeers.noRegistry())
                .reference(reference)
                .start();
        BlobService blobs = reference.get();
        AtomicLong answers = new AtomicLong();
        for (int i = 0; i < callers; i++) {
            Thread caller = new Thread(() -> {
                while (true) {
                    try {
                        if (blobs.blob(chars).length() == chars) {
                            if (answers.incrementAndGet() % 16 == 0) {
                                System.out.println("DONE " + answers.get());
                            }
                        }
                    } catch (RuntimeException e) {
                        System.out.println("ERROR " + e.getClass().getSimpleName());
                    }
                }
            }, "caller-" + i);
            caller.setDaemon(true);
            caller.start();
        }
        new CountDownLatch(1).await(); // until killed
    }
}
