/**
 * The Dubbo 3.3 {@code Transporter} extension named {@code sluice}: Dubbo's handlers, codec and URL parameters on
 * Sluice's transport. The only package that imports {@code org.apache.dubbo.*}: Dubbo is a dependency of this module
 * ({@code sluice-dubbo}) and of no other.
 *
 * <p>Entry point: {@link dev.sluice.dubbo.SluiceTransporter}. Outbound, Dubbo's codec encodes on the
 * sending thread straight into the pooled buffer queued on the connection's write queue; inbound, it decodes from
 * the connection's buffer in place on the event loop. URL parameters map to transport options as described in
 * {@code DubboUrlOptions}.
 */
package dev.sluice.dubbo;
