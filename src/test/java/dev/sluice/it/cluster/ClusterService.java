package dev.sluice.it.cluster;

/**
 * The service of the cluster scenario ({@link ClusterScenario}). Every call carries a unique id, so the providers
 * can count how often each call ran and the consumer can check that the answer belongs to its call.
 */
public interface ClusterService {
    /** Records one execution of call {@code callId} on the provider and returns {@code callId}. */
    long call(long callId);
}
