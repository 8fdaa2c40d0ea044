package dev.sluice.it.cluster;

import dev.sluice.it.harness.ExecutionLog;

/**
 * The provider's {@link ClusterService}: records the execution before it answers, so a call that runs and whose
 * answer never reaches the consumer (the provider killed or frozen meanwhile) still counts as executed.
 *
 * <p>Runs on the provider's Dubbo service threads; thread-safe.
 */
final class ClusterServiceImpl implements ClusterService {
    private final ExecutionLog log;

    ClusterServiceImpl(ExecutionLog log) {
        this.log = log;
    }

    @Override
    public long call(long callId) {
        log.record(callId);
        return callId;
    }
}
