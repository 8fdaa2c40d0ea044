/**
 * The codec SPI a protocol implements so the transport can move its frames: {@link
 * dev.sluice.transport.codec.FrameEncoder} encodes on the caller's thread into a pooled buffer, {@link
 * dev.sluice.transport.codec.FrameDecoder} cuts and decodes inbound frames on the event loop.
 */
package dev.sluice.transport.codec;
