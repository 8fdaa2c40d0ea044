/**
 * Micrometer meters for calls. The only package of {@code rpc} that imports {@code io.micrometer}, an
 * optional dependency: these classes load only when the application creates a {@link MicrometerInterceptor}.
 */
package dev.sluice.rpc.micrometer;
