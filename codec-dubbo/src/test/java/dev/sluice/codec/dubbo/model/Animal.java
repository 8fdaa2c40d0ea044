package dev.sluice.codec.dubbo.model;

import java.io.Serializable;
import java.util.Objects;

/** A registered model type; {@link Dog} is a subclass no service declares. */
public class Animal implements Serializable {
    private static final long serialVersionUID = 1L;
    private String name;

    public Animal() {
    }

    public Animal(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && Objects.equals(name, ((Animal) o).name);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(name);
    }
}
