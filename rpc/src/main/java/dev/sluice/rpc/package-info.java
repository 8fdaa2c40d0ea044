/**
 * The standalone Dubbo-protocol endpoints: {@link dev.sluice.rpc.SluiceServer} serves plain Java service
 * implementations to Dubbo 3.3 consumers (and to {@link dev.sluice.rpc.SluiceClient}), and {@code SluiceClient}
 * calls Dubbo 3.3 providers (serialization fastjson2) through typed proxies.
 */
package dev.sluice.rpc;
