package dev.sluice.benchmark.targets;

import dev.sluice.benchmark.BenchTarget;

/** A registered target whose implementation does not exist yet; listed, but never run. */
public final class PendingTarget implements BenchTarget {
    private final String name;
    private final String description;
    private final String reason;

    public PendingTarget(String name, String description, String reason) {
        this.name = name;
        this.description = description;
        this.reason = reason;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public String unavailableReason() {
        return reason;
    }

    @Override
    public AutoCloseable startServer(String host, int port) {
        throw new UnsupportedOperationException(name + ": " + reason);
    }

    @Override
    public Client connect(ClientConfig config) {
        throw new UnsupportedOperationException(name + ": " + reason);
    }
}
