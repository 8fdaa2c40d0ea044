package dev.sluice.it.rpc.model;

import java.io.Serializable;
import java.util.Objects;

/** A generic holder. */
public class Box<T> implements Serializable {
    private static final long serialVersionUID = 1L;
    private T content;

    public Box() {
    }

    public Box(T content) {
        this.content = content;
    }

    public T getContent() {
        return content;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Box && Objects.equals(content, ((Box<?>) o).content);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(content);
    }
}
