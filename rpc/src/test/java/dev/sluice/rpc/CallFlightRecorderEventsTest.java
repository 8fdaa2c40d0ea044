package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.transport.FrameTooLargeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** CallTimeout and FrameRejected JFR events from real calls, read back from a recording. */
@Timeout(60)
class CallFlightRecorderEventsTest {
    @TempDir
    Path dir;

    @Test
    void aTimedOutCallAndAnOversizedRequestAreRecorded() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        SluiceInterceptor hold = new SluiceInterceptor() {
            @Override
            public void onCall(Invocation inv) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        Path file = dir.resolve("calls.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.sluice.CallTimeout");
            recording.enable("dev.sluice.FrameRejected");
            recording.start();
            try (SluiceServer server = SluiceServer.builder().port(0)
                    .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl()).intercept(hold).start();
                 SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                         .timeout(Duration.ofMillis(200)).payloadLimit(1024).failIfNotConnected(true).build()) {
                InterceptorTest.Greeter g = client.proxy(InterceptorTest.Greeter.class);
                assertThrows(RpcTimeoutException.class, () -> g.greet("slow"));
                assertThrows(FrameTooLargeException.class, () -> g.greet("x".repeat(4096)));
                release.countDown();
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> timeouts = new ArrayList<>();
        List<RecordedEvent> rejected = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            String name = e.getEventType().getName();
            if (name.equals("dev.sluice.CallTimeout")) {
                timeouts.add(e);
            } else if (name.equals("dev.sluice.FrameRejected")) {
                rejected.add(e);
            }
        }
        assertEquals(1, timeouts.size(), timeouts.toString());
        assertEquals("Greeter.greet", timeouts.get(0).getString("method"));
        assertEquals("SENT", timeouts.get(0).getString("sendState"), "the server held the request it had read");
        assertEquals(200, timeouts.get(0).getLong("timeout"));
        assertEquals(1, rejected.size(), rejected.toString());
        assertEquals(1024, rejected.get(0).getLong("limit"));
        assertEquals(true, rejected.get(0).getLong("size") > 4096, rejected.get(0).toString());
    }
}
