package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.DubboDescriptors;
import dev.sluice.codec.dubbo.DubboMethod;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link DescribedCalls}, the path sluice-dubbo's consumer lever sends Dubbo's invocations through: a call described
 * per call (target, attachments, value type) answers with the value or the service's own exception as an
 * {@link DescribedCalls.Answer}, carrying the response's attachments, synchronous and asynchronous; a timeout is
 * thrown (or fails the future) as {@link RpcTimeoutException}, as for a proxy call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DescribedCallsTest {
    /** The service: an account that refuses overdrafts. */
    public interface Account {
        int withdraw(int amount) throws Overdrawn;

        String hold(String tag);
    }

    /** The service's own declared exception. */
    public static class Overdrawn extends Exception {
        private static final long serialVersionUID = 1L;

        public Overdrawn(String message) {
            super(message);
        }
    }

    static final class AccountImpl implements Account {
        final CountDownLatch gate = new CountDownLatch(1);

        @Override
        public int withdraw(int amount) throws Overdrawn {
            SluiceContext ctx = SluiceContext.current();
            ctx.setResponseAttachment("seen", String.valueOf(ctx.attachments().get("who")));
            if (amount > 100) {
                throw new Overdrawn("balance 100, asked " + amount);
            }
            return 100 - amount;
        }

        @Override
        public String hold(String tag) {
            try {
                gate.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return tag;
        }
    }

    private static DescribedCalls.Signature signature(String method, Class<?> param, boolean async, long timeout)
            throws NoSuchMethodException {
        DubboMethod target = DubboMethod.of(Account.class.getName(), null, method, DubboDescriptors.desc(param));
        Class<?> type = Account.class.getMethod(method, param).getReturnType();
        return DescribedCalls.signature(target, "Account." + method, type == int.class ? Integer.class : type, async,
                false, timeout, Serialization.FASTJSON2);
    }

    @Test
    void answersCarryTheValueOrTheServicesExceptionAndTheResponseAttachmentsSyncAndAsync() throws Throwable {
        AccountImpl impl = new AccountImpl();
        try (SluiceServer server = SluiceServer.builder().port(0).register(Account.class, impl).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .failIfNotConnected(true).build()) {
            DescribedCalls.allow(client, Account.class);
            assertTrue(DescribedCalls.acceptsCalls(client));
            Map<String, Object> attachments = Map.of("path", Account.class.getName(), "who", "ann");

            DescribedCalls.Answer ok = DescribedCalls.call(client, signature("withdraw", int.class, false, 5000),
                    new Object[] {30}, attachments);
            assertEquals(70, ok.value());
            assertNull(ok.exception());
            assertEquals("ann", ok.attachments().get("seen"));

            DescribedCalls.Answer refused = DescribedCalls.call(client, signature("withdraw", int.class, false, 5000),
                    new Object[] {300}, attachments);
            assertInstanceOf(Overdrawn.class, refused.exception(), String.valueOf(refused.exception()));
            assertEquals("balance 100, asked 300", refused.exception().getMessage());
            assertEquals("ann", refused.attachments().get("seen"));

            DescribedCalls.Answer later = DescribedCalls.callAsync(client,
                    signature("withdraw", int.class, true, 5000), new Object[] {300}, attachments)
                    .get(10, TimeUnit.SECONDS);
            assertInstanceOf(Overdrawn.class, later.exception());
            assertEquals("ann", later.attachments().get("seen"));
        }
    }

    @Test
    void aCallPastItsTimeoutIsAnRpcTimeoutExceptionSyncAndAsync() throws Throwable {
        AccountImpl impl = new AccountImpl();
        try (SluiceServer server = SluiceServer.builder().port(0).register(Account.class, impl).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofSeconds(30)).failIfNotConnected(true).build()) {
            Map<String, Object> attachments = Map.of("path", Account.class.getName());
            long t0 = System.nanoTime();
            assertThrows(RpcTimeoutException.class, () -> DescribedCalls.call(client,
                    signature("hold", String.class, false, 200), new Object[] {"a"}, attachments));
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(took >= 200 && took < 5000, "the 200 ms call timed out after " + took + " ms");

            CompletableFuture<DescribedCalls.Answer> async = DescribedCalls.callAsync(client,
                    signature("hold", String.class, true, 200), new Object[] {"b"}, attachments);
            ExecutionException e = assertThrows(ExecutionException.class, () -> async.get(10, TimeUnit.SECONDS));
            assertInstanceOf(RpcTimeoutException.class, e.getCause());
            impl.gate.countDown();
            DescribedCalls.Answer after = DescribedCalls.call(client, signature("hold", String.class, false, 5000),
                    new Object[] {"c"}, attachments);
            assertEquals("c", after.value());
        }
    }
}
