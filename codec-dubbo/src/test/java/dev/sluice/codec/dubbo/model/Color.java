package dev.sluice.codec.dubbo.model;

public enum Color {
    RED, GREEN, BLUE
}
