package dev.sluice.it.interop;

import dev.sluice.it.rpc.model.TypesServiceImpl;
import dev.sluice.rpc.SluiceContext;
import org.apache.dubbo.rpc.RpcContext;

/**
 * How {@link TypesServiceImpl} reads request attachments and adds response attachments on each kind of provider:
 * {@link SluiceContext} in a {@code SluiceServer}, Dubbo's {@link RpcContext} in a Dubbo provider.
 *
 * <p>Both accessors use thread-locals of the thread running the service method.
 */
final class ServiceContexts {
    private ServiceContexts() {
    }

    static final TypesServiceImpl.Attachments SLUICE = new TypesServiceImpl.Attachments() {
        @Override
        public String get(String key) {
            Object v = SluiceContext.current().attachments().get(key);
            return v == null ? null : v.toString();
        }

        @Override
        public void reply(String key, String value) {
            SluiceContext.current().setResponseAttachment(key, value);
        }
    };

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
