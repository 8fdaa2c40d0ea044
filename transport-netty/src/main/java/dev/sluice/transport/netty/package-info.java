/**
 * The Netty implementation of the transport API: {@link dev.sluice.transport.netty.NettyClientTransport},
 * {@link dev.sluice.transport.netty.NettyServerTransport}, the {@link dev.sluice.transport.netty.NettyConnection}
 * they hand out, and {@link dev.sluice.transport.netty.EventLoops}. Everything else here is package-private.
 *
 * <p><b>Threads</b> (docs/ARCHITECTURE.md §2):
 * <ul>
 *   <li><em>Any thread</em> sends: {@code NettyConnection.send} encodes on the calling thread into a pooled buffer
 *       and hands it to the connection's {@code WriteQueue} (an MPSC queue); it never blocks, and refuses at once
 *       (typed, "not sent") when the connection is closing or over its pending-bytes cap.</li>
 *   <li><em>The channel's event loop</em> does everything else: it drains the queue in bounded batches (one write,
 *       one flush, exactly that batch's listeners), reads and cuts frames ({@code FrameDecoderAdapter}), delivers
 *       events to the {@link dev.sluice.transport.TransportHandler} ({@code ConnectionHandler}), pauses reading
 *       while the peer does not drain, and closes. Loop-only methods check {@code inEventLoop()}.</li>
 *   <li>Blocking calls (connect, bind, close and wait) run on the caller's thread and refuse to wait on an event
 *       loop.</li>
 * </ul>
 *
 * <p><b>Buffers</b>: the write queue owns every buffer handed to it, on every path; the frame decoder's
 * cumulation belongs to {@code FrameDecoderAdapter}, and decoded messages hold no buffer unless the protocol says so.
 */
package dev.sluice.transport.netty;
