package dev.sluice.benchmark.codec;

import io.netty.buffer.ByteBuf;
import java.util.Map;

/**
 * One implementation of the {@code dubbo} protocol's codec and serialization, driven frame by frame for one
 * {@link CodecCall}: encode the request or the response into a new pooled buffer, and decode a whole frame back to
 * values (bodies included, as the caller and the service need them).
 *
 * <p>Not thread-safe: one benchmark thread uses an instance (decoders keep per-connection state, as on an event
 * loop).
 */
public interface CodecPath extends AutoCloseable {
    /** The request frame, in a new buffer the caller releases. */
    ByteBuf encodeRequest();

    /** The response frame (the call's result with the provider's attachments), in a new buffer the caller releases. */
    ByteBuf encodeResponse();

    /** Decodes the request frame at {@code frame}'s reader index (which it advances) to the call's arguments. */
    Object[] decodeRequest(ByteBuf frame);

    /** Decodes the response frame at {@code frame}'s reader index (which it advances) to the result value. */
    Object decodeResponse(ByteBuf frame);

    /** The attachments of the frame decoded last. */
    Map<String, Object> lastAttachments();

    /** The service path and method name of the request decoded last, as {@code path#method}. */
    String lastTarget();

    @Override
    void close();
}
