package dev.sluice.it.reliability;

import dev.sluice.transport.Connection;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.codec.LengthFieldFrames;
import dev.sluice.transport.netty.NettyServerTransport;
import io.netty.buffer.ByteBuf;
import java.util.Collection;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A misbehaving Dubbo provider for client-side tests: cuts the inbound stream into Dubbo frames without decoding
 * them and lets a script answer each with whatever bytes it likes (or close, or stay silent). Runs the script on
 * the event loop.
 */
final class ScriptedServer implements AutoCloseable {
    /** Called for each request frame the client sends. */
    interface Script {
        void onFrame(Connection connection, Wire.Frame frame);
    }

    private final NettyServerTransport transport;
    final Collection<Connection> accepted = new CopyOnWriteArrayList<>();

    private ScriptedServer(int port, NativeTransport kind, Script script) {
        this.transport = NettyServerTransport.builder().port(port)
                .options(TransportOptions.builder().nativeTransport(kind).ioThreads(1).build())
                .codec(new LengthFieldFrames(Wire.HEADER, 12, 64 << 20))
                .handler(new TransportHandler() {
                    @Override
                    public void connected(Connection connection) {
                        accepted.add(connection);
                    }

                    @Override
                    public void received(Connection connection, Object message) {
                        ByteBuf b = (ByteBuf) message;
                        Wire.Frame frame;
                        try {
                            byte[] body = new byte[b.readableBytes() - Wire.HEADER];
                            b.getBytes(b.readerIndex() + Wire.HEADER, body);
                            frame = new Wire.Frame(b.getUnsignedByte(b.readerIndex() + 2),
                                    b.getUnsignedByte(b.readerIndex() + 3), b.getLong(b.readerIndex() + 4), body);
                        } finally {
                            b.release();
                        }
                        script.onFrame(connection, frame);
                    }
                }).bind();
    }

    static ScriptedServer start(Script script) {
        return new ScriptedServer(0, NativeTransport.NIO, script);
    }

    static ScriptedServer start(int port, NativeTransport kind, Script script) {
        return new ScriptedServer(port, kind, script);
    }

    int port() {
        return transport.port();
    }

    @Override
    public void close() {
        transport.close();
    }
}
