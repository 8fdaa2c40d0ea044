/**
 * Sluice's transport API: Netty-free interfaces for server and client transports, the {@link
 * dev.sluice.transport.Connection} a protocol sends on, typed options, and the unchecked exceptions the
 * transport raises. The Netty implementation lives in {@code dev.sluice.transport.netty}; the codec SPI a
 * protocol implements lives in {@code dev.sluice.transport.codec}.
 */
package dev.sluice.transport;
