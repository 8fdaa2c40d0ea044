package dev.sluice.dubbo;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.Decodeable;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.Response;
import org.apache.dubbo.remoting.transport.ChannelHandlerDelegate;

/**
 * A consumer's handler, in front of Dubbo's {@code DecodeHandler}, that stops a response's call clock
 * ({@link CallClock#responseReceived}) once its result is decoded, so the outcome can tell a value from a service's
 * exception; then hands the response on. Installed by {@link SluiceDubboClient} only with {@code sluice.metrics}.
 *
 * <p>Decoding here is what {@code DecodeHandler} would do next, on the same thread: a {@code Decodeable} result
 * decodes once (a second call does nothing), and a decoding failure is left for {@code DecodeHandler} to report.
 *
 * <p>Threads: runs where Dubbo's dispatcher delivers events (the consumer's thread for responses by default, or the
 * event loop); stateless.
 */
final class ResponseClock implements ChannelHandlerDelegate {
    private final ChannelHandler handler;

    private ResponseClock(ChannelHandler handler) {
        this.handler = handler;
    }

    /** {@code handler} itself without {@code sluice.metrics}: then responses pay nothing. */
    static ChannelHandler wrap(URL url, ChannelHandler handler) {
        return DubboUrlOptions.metricsName(url) == null ? handler : new ResponseClock(handler);
    }

    @Override
    public void received(Channel channel, Object message) throws RemotingException {
        if (message instanceof Response && channel instanceof SluiceChannel) {
            CallClock calls = ((SluiceChannel) channel).calls();
            Response response = (Response) message;
            if (calls != null && !response.isEvent()) {
                Object result = response.getResult();
                if (response.getStatus() == Response.OK && result instanceof Decodeable) {
                    try {
                        ((Decodeable) result).decode();
                    } catch (Throwable ignored) {
                        // DecodeHandler, next, meets the same failure and reports it as it always does
                    }
                }
                calls.responseReceived(response);
            }
        }
        handler.received(channel, message);
    }

    @Override
    public void connected(Channel channel) throws RemotingException {
        handler.connected(channel);
    }

    @Override
    public void disconnected(Channel channel) throws RemotingException {
        handler.disconnected(channel);
    }

    @Override
    public void sent(Channel channel, Object message) throws RemotingException {
        handler.sent(channel, message);
    }

    @Override
    public void caught(Channel channel, Throwable exception) throws RemotingException {
        handler.caught(channel, exception);
    }

    @Override
    public ChannelHandler getHandler() {
        return handler instanceof ChannelHandlerDelegate ? ((ChannelHandlerDelegate) handler).getHandler() : handler;
    }
}
