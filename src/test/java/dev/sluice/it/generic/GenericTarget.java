package dev.sluice.it.generic;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The service of the generic-call interop checks (issue 34): primitives, a string, a POJO with a nested list,
 * {@code List<POJO>}, a map, null, a declared exception, and a parameter whose subtype a caller names in
 * {@code "class"}. Exported by a {@code SluiceServer} and by a real Dubbo provider; callers reach it only
 * generically, by name.
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

    /** An order line, a bean: Dubbo's provider converts POJOs through their getters and setters. */
    class Line implements Serializable {
        private static final long serialVersionUID = 1L;
        private String sku;
        private int quantity;

        public String getSku() {
            return sku;
        }

        public void setSku(String sku) {
            this.sku = sku;
        }

        public int getQuantity() {
            return quantity;
        }

        public void setQuantity(int quantity) {
            this.quantity = quantity;
        }
    }

    /** An order holding a list of lines. */
    class Order implements Serializable {
        private static final long serialVersionUID = 1L;
        private long id;
        private String customer;
        private List<Line> lines = new ArrayList<>();

        public long getId() {
            return id;
        }

        public void setId(long id) {
            this.id = id;
        }

        public String getCustomer() {
            return customer;
        }

        public void setCustomer(String customer) {
            this.customer = customer;
        }

        public List<Line> getLines() {
            return lines;
        }

        public void setLines(List<Line> lines) {
            this.lines = lines;
        }
    }

    /** A parameter type with a subtype, {@link Circle}, that no method declares. */
    class Shape implements Serializable {
        private static final long serialVersionUID = 1L;
        private String name;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }
    }

    /** Reached by no method: a provider accepts it only when allowed explicitly. */
    class Circle extends Shape {
        private static final long serialVersionUID = 1L;
        private double radius;

        public double getRadius() {
            return radius;
        }

        public void setRadius(double radius) {
            this.radius = radius;
        }
    }

    /** The declared exception. */
    class OutOfStock extends Exception {
        private static final long serialVersionUID = 1L;

        public OutOfStock(String message) {
            super(message);
        }
    }
}
