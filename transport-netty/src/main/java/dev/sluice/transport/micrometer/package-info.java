/**
 * Micrometer binding of the transport's counts. The only package of {@code transport-netty} that imports
 * {@code io.micrometer}, which is an optional dependency: nothing else loads these classes, so Sluice runs without
 * Micrometer on the class path unless the application creates a {@link MicrometerTransportObserver}.
 */
package dev.sluice.transport.micrometer;
