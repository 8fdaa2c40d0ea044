package dev.sluice.it.conformance;

import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesServiceImpl;
import org.apache.dubbo.rpc.RpcContext;

/**
 * How {@link TypesServiceImpl} reads request attachments and adds response attachments in a Dubbo provider: through
 * Dubbo's {@link RpcContext}, a thread-local of the thread running the service method. (In a {@code SluiceServer}:
 * {@link SluiceAttachments}.)
 */
final class ServiceContexts {
    private ServiceContexts() {
    }

    static final TypesServiceImpl.Attachments DUBBO = new TypesServiceImpl.Attachments() {
        @Override
        public String get(String key) {
            Object v = RpcContext.getServerAttachment().getObjectAttachment(key);
            return v == null ? null : v.toString();
        }

        @Override
        public void reply(String key, String value) {
            RpcContext.getServerContext().setAttachment(key, value);
        }
    };
}
