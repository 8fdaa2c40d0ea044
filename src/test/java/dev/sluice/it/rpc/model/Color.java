package dev.sluice.it.rpc.model;

/** An enum travelling as a value. */
public enum Color {
    RED, GREEN, BLUE
}
