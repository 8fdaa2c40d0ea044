package dev.sluice.it.conformance;

/**
 * Test service for the Dubbo transport scenarios: sizes on demand (payload limits) and calls held on the provider
 * (graceful shutdown with calls in flight).
 */
public interface BulkService {
    /** A string of {@code chars} ASCII characters: a large response for a small request. */
    String blob(int chars);

    /** The length of {@code data}: a large request for a small response. */
    int size(String data);

    /** Blocks on the provider until the scenario opens the gate, then returns {@code ticket}. */
    int hold(int ticket);
}
