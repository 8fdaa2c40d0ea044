package dev.sluice.dubbo;

import java.io.IOException;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.buffer.ChannelBuffer;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.codec.ExchangeCodec;

/**
 * Dubbo's exchange codec, registered for tests as the {@code Codec2} extension {@code sluice-test-overflow} (the URL's
 * {@code codec} key picks it: the adapter's decoder seam). It decodes as Dubbo does, except that a request whose data
 * is {@value #TRIGGER} recurses until the JVM throws a real {@link StackOverflowError} on the decoding thread, the
 * event loop. Stateless; any thread.
 */
public final class OverflowingCodec extends ExchangeCodec {
    static final String TRIGGER = "overflow";

    @Override
    public Object decode(Channel channel, ChannelBuffer buffer) throws IOException {
        Object message = super.decode(channel, buffer);
        if (message instanceof Request && TRIGGER.equals(((Request) message).getData())) {
            return deeper(0);
        }
        return message;
    }

    private static int deeper(int depth) {
        return deeper(depth + 1) + 1;
    }
}
