package dev.sluice.codec.dubbo.model;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A generic, nested POJO with a nested static class, to check descriptors with '$' and generic fields. */
public class Box<T> implements Serializable {
    private static final long serialVersionUID = 1L;
    private T content;
    private List<Inner> inners;
    private Map<String, List<Integer>> index;
    private transient Object notSent;

    public Box() {
    }

    public Box(T content, List<Inner> inners, Map<String, List<Integer>> index) {
        this.content = content;
        this.inners = inners;
        this.index = index;
    }

    public T getContent() {
        return content;
    }

    public List<Inner> getInners() {
        return inners;
    }

    public Map<String, List<Integer>> getIndex() {
        return index;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Box)) {
            return false;
        }
        Box<?> b = (Box<?>) o;
        return Objects.equals(content, b.content) && Objects.equals(inners, b.inners) && Objects.equals(index, b.index);
    }

    @Override
    public int hashCode() {
        return Objects.hash(content, inners, index);
    }

    @Override
    public String toString() {
        return "Box{" + content + ", " + inners + ", " + index + "}";
    }

    /** A nested model class: binary name {@code Box$Inner}. */
    public static class Inner implements Serializable {
        private static final long serialVersionUID = 1L;
        private Color color;
        private long[] values;

        public Inner() {
        }

        public Inner(Color color, long[] values) {
            this.color = color;
            this.values = values;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Inner && ((Inner) o).color == color
                    && java.util.Arrays.equals(((Inner) o).values, values);
        }

        @Override
        public int hashCode() {
            return Objects.hash(color, java.util.Arrays.hashCode(values));
        }

        @Override
        public String toString() {
            return "Inner{" + color + ", " + java.util.Arrays.toString(values) + "}";
        }
    }
}
