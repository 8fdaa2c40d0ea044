package dev.sluice.it.harness;

import org.apache.dubbo.rpc.RpcContext;

/** Provider side of {@link EchoService}; runs on Dubbo's provider business threads. */
public final class EchoServiceImpl implements EchoService {
    @Override
    public String echo(String text) {
        return text;
    }

    @Override
    public EchoReply exchange(EchoRequest request) {
        EchoReply reply = new EchoReply();
        reply.setSeq(request.getSeq());
        reply.setReversed(new StringBuilder(request.getText()).reverse().toString());
        reply.setSum(request.getNumbers().stream().mapToLong(Integer::longValue).sum());
        reply.setSeenFrom(RpcContext.getServiceContext().getRemoteHost());
        return reply;
    }
}
