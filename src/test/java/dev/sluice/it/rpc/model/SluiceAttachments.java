package dev.sluice.it.rpc.model;

import dev.sluice.rpc.SluiceContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How {@link TypesServiceImpl} reads request attachments and adds response attachments in a {@code SluiceServer}:
 * through {@link SluiceContext}, the thread-local of the thread running the service method.
 */
public final class SluiceAttachments implements TypesServiceImpl.Attachments {
    public static final SluiceAttachments INSTANCE = new SluiceAttachments();

    private SluiceAttachments() {
    }

    /** The reference service for a {@code SluiceServer}; its asynchronous methods complete on the common pool. */
    public static TypesServiceImpl service() {
        return new TypesServiceImpl(INSTANCE, CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS));
    }

    @Override
    public String get(String key) {
        Object v = SluiceContext.current().attachments().get(key);
        return v == null ? null : v.toString();
    }

    @Override
    public void reply(String key, String value) {
        SluiceContext.current().setResponseAttachment(key, value);
    }
}
