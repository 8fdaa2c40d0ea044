package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.DubboSerializationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md D24b: an {@link Error} while the caller encodes its request (a {@link StackOverflowError} from
 * an argument nested too deeply) fails the call with a typed error, leaves no call
 * waiting in the client's table and leaves the client working.
 */
@Timeout(60)
class ClientRequestErrorTest {

    public interface Sizes {
        int size(List<Object> list);

        CompletableFuture<Integer> sizeAsync(List<Object> list);
    }

    static final class SizesImpl implements Sizes {
        @Override
        public int size(List<Object> list) {
            return list.size();
        }

        @Override
        public CompletableFuture<Integer> sizeAsync(List<Object> list) {
            return CompletableFuture.completedFuture(list.size());
        }
    }

    /**
     * A list nested so deep that writing it overflows the encoder's stack. (A list that contains itself does not:
     * both serializations write the repeat as a back-reference.)
     */
    private static List<Object> overflowing() {
        List<Object> list = new ArrayList<>();
        List<Object> inner = list;
        for (int i = 0; i < 200_000; i++) {
            List<Object> next = new ArrayList<>(1);
            inner.add(next);
            inner = next;
        }
        return list;
    }

    @ParameterizedTest
    @EnumSource(Serialization.class)
    void anErrorWhileEncodingFailsTheCallTypedAndLeavesNoPendingCall(Serialization serialization) throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).register(Sizes.class, new SizesImpl()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofSeconds(30)).serialization(serialization).failIfNotConnected(true).build()) {
            Sizes sizes = client.proxy(Sizes.class);
            List<Object> bad = overflowing();
            Throwable sync = assertThrows(Throwable.class, () -> sizes.size(bad));
            assertEquals(0, client.pendingCalls(), "the synchronous call was left waiting in the table");
            assertInstanceOf(DubboSerializationException.class, sync);
            assertInstanceOf(StackOverflowError.class, sync.getCause());
            assertTrue(sync.getMessage().startsWith("Not sent") && sync.getMessage().contains("Sizes.size")
                    && sync.getMessage().contains("StackOverflowError"), sync.getMessage());
            Throwable async = assertThrows(Throwable.class, () -> sizes.sizeAsync(bad));
            assertEquals(0, client.pendingCalls(), "the asynchronous call was left waiting in the table");
            assertInstanceOf(DubboSerializationException.class, async);
            assertInstanceOf(StackOverflowError.class, async.getCause());
            assertEquals(2, sizes.size(List.of("a", "b")), "the client keeps working");
            assertEquals(3, sizes.sizeAsync(List.of("a", "b", "c")).get(10, TimeUnit.SECONDS));
            assertEquals(0, client.pendingCalls());
        }
    }
}
