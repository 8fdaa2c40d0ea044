package dev.sluice.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Makes a Netty leak report fail the build. Surefire starts every test JVM with
 * {@code -Dio.netty.leakDetection.level=paranoid
 * -Dio.netty.customResourceLeakDetector=dev.sluice.testing.LeakGate$Detector},
 * so every buffer is tracked by {@link Detector}, which records each report. This extension is registered
 * through {@code META-INF/services} (JUnit auto-detection); after each test class it collects garbage, lets the
 * detector poll its reference queue, and fails the class if anything leaked.
 *
 * <p>Runs on the JUnit thread.
 */
public final class LeakGate implements AfterAllCallback {
    private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();

    /** Records what Netty would log as {@code LEAK:}; also logs it, so the report shows in the test output. */
    public static final class Detector<T> extends ResourceLeakDetector<T> {
        public Detector(Class<?> resourceType, int samplingInterval) {
            super(resourceType, samplingInterval);
        }

        /** The constructor Netty tries first; present so it does not log a NoSuchMethodException. */
        public Detector(Class<?> resourceType, int samplingInterval, long maxActive) {
            this(resourceType, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected." + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected (untraced)");
            super.reportUntracedLeak(resourceType);
        }
    }

    /** True when the JVM runs with the recording detector (it does under Maven). */
    public static boolean active() {
        return Detector.class.getName().equals(System.getProperty("io.netty.customResourceLeakDetector"))
                && ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID;
    }

    /**
     * Forces collection of unreachable buffers and returns (and forgets) every leak reported so far. The detector
     * only looks at collected buffers when a new buffer is tracked, so this allocates between collections.
     */
    public static List<String> collectLeaks() {
        for (int i = 0; i < 5; i++) {
            System.gc();
            System.runFinalization();
            for (int j = 0; j < 16; j++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(8);
                probe.release();
                probe = PooledByteBufAllocator.DEFAULT.heapBuffer(8);
                probe.release();
            }
        }
        List<String> leaks = new ArrayList<>();
        for (String leak; (leak = LEAKS.poll()) != null; ) {
            leaks.add(leak);
        }
        return leaks;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> leaks = collectLeaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " ByteBuf leak(s) reported while running "
                    + context.getDisplayName() + ":\n" + String.join("\n", leaks));
        }
    }
}
