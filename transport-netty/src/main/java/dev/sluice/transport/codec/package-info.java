/**
 * The codec SPI a protocol implements so the transport can move its frames: {@link
 * dev.sluice.transport.codec.FrameEncoder} encodes on the caller's thread into a pooled buffer, {@link
 * dev.sluice.transport.codec.FrameDecoder} decodes inbound frames on the event loop, cut by a {@link
 * dev.sluice.transport.codec.HeaderFramer} (which also refuses oversized frames from their header and skips their
 * bodies). {@link dev.sluice.transport.internal.DubboHeader} is the Dubbo header both Dubbo decoders frame with.
 */
package dev.sluice.transport.codec;
