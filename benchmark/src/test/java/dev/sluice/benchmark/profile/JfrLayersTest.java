package dev.sluice.benchmark.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class JfrLayersTest {

    @Test
    void aSampleInGenericCodeBelongsToItsNearestNonGenericCaller() {
        // a ByteBuf write called by fastjson2 through Dubbo's serialization: serialization, not transport
        assertEquals("serialization", JfrLayers.layer(List.of("io.netty.buffer.AbstractByteBuf",
                "com.alibaba.fastjson2.JSONWriterJSONB", "org.apache.dubbo.rpc.protocol.dubbo.DubboCodec")));
        // an unpark called by Dubbo's future: exchange
        assertEquals("exchange/futures/dispatch", JfrLayers.layer(List.of("java.util.concurrent.locks.LockSupport",
                "java.util.concurrent.CompletableFuture", "org.apache.dubbo.remoting.exchange.support.DefaultFuture",
                "org.apache.dubbo.remoting.exchange.support.header.HeaderExchangeHandler")));
        // attachments read by the codec count as codec, by a filter as filter
        assertEquals("codec", JfrLayers.layer(List.of("java.util.HashMap", "org.apache.dubbo.rpc.RpcInvocation",
                "org.apache.dubbo.rpc.protocol.dubbo.DubboCodec")));
        assertEquals("proxy/filters/cluster", JfrLayers.layer(List.of("org.apache.dubbo.rpc.RpcInvocation",
                "org.apache.dubbo.rpc.filter.GenericFilter")));
    }

    @Test
    void theTransportsOwnCodeAndNettysChannelsAreTransport() {
        assertEquals("transport", JfrLayers.layer(List.of("sun.nio.ch.SocketChannelImpl",
                "io.netty.channel.socket.nio.NioSocketChannel")));
        assertEquals("transport", JfrLayers.layer(List.of("dev.sluice.transport.netty.WriteQueue")));
        assertEquals("codec", JfrLayers.layer(List.of("io.netty.buffer.PoolArena",
                "dev.sluice.dubbo.ByteBufChannelBuffer")));
        assertEquals("transport", JfrLayers.layer(List.of(
                "org.apache.dubbo.remoting.transport.netty4.Netty4BatchWriteQueue")));
        // each transport's ByteBuf view for Dubbo's codec counts as codec: the codec writes through it
        assertEquals("codec", JfrLayers.layer(List.of("io.netty.buffer.PoolArena",
                "org.apache.dubbo.remoting.transport.netty4.NettyBackedChannelBuffer")));
    }

    @Test
    void stacksOfOnlyJdkCodeAreSeparate() {
        assertEquals("jdk-only", JfrLayers.layer(List.of("java.lang.Thread")));
        assertEquals("other", JfrLayers.layer(List.of()));
        assertEquals("other", JfrLayers.layer(List.of("org.slf4j.Logger")));
    }
}
