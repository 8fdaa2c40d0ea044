package dev.sluice.codec.dubbo.model;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The service of the generic-call checks (issue 34): primitives, a string, a POJO with a nested list,
 * {@code List<POJO>}, a map, null, a declared exception, overloads, and a parameter whose subtype a caller names in
 * {@code "class"}. Exported by a {@code SluiceServer} and by real Dubbo providers; callers reach it only generically,
 * by name. The model's fields are public, which both Sluice's and Dubbo's generic conversions read and write.
 */
public interface GenericTarget {
    long add(int a, long b);

    String greet(String name);

    Order total(Order order);

    List<Line> split(List<Line> lines);

    Map<String, Integer> counts(Map<String, Integer> counts);

    String nothing(String value);

    /** The class and name of the shape it was given: a subtype named in {@code "class"} arrives as that subtype. */
    String kind(Shape shape);

    void reserve(String sku) throws OutOfStock;

    String over(int x);

    String over(String x);

    /** An order line. */
    class Line implements Serializable {
        private static final long serialVersionUID = 1L;
        public String sku;
        public int quantity;
    }

    /** An order holding a list of lines. */
    class Order implements Serializable {
        private static final long serialVersionUID = 1L;
        public long id;
        public String customer;
        public List<Line> lines = new ArrayList<>();
    }

    /** A parameter type with a subtype, {@link Circle}, that no method declares. */
    class Shape implements Serializable {
        private static final long serialVersionUID = 1L;
        public String name;
    }

    /** Reached by no method: a provider accepts it only when allowed explicitly. */
    class Circle extends Shape {
        private static final long serialVersionUID = 1L;
        public double radius;
    }

    /** The declared exception. */
    class OutOfStock extends Exception {
        private static final long serialVersionUID = 1L;

        public OutOfStock(String message) {
            super(message);
        }
    }
}
