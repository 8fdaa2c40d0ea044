package dev.sluice.codec.dubbo.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the providers of the generic-call checks export (a {@code SluiceServer} in {@code GenericCallTest} and in the
 * Dubbo 2.7 and 3.3.6 interop runs, a Dubbo 3.3.6 provider in the latter); {@code prefix} tells the version-2.0 one
 * apart.
 */
public class GenericTargetImpl implements GenericTarget {
    private final String prefix;

    public GenericTargetImpl(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public long add(int a, long b) {
        return a + b;
    }

    @Override
    public String greet(String name) {
        return prefix + "hello " + name;
    }

    @Override
    public Order total(Order order) {
        Order out = new Order();
        out.id = order.id + 1;
        out.customer = order.customer.toUpperCase();
        for (Line l : order.lines) {
            Line c = new Line();
            c.sku = l.sku;
            c.quantity = l.quantity * 2;
            out.lines.add(c);
        }
        return out;
    }

    @Override
    public List<Line> split(List<Line> lines) {
        List<Line> out = new ArrayList<>();
        for (Line l : lines) {
            for (int i = 0; i < l.quantity; i++) {
                Line one = new Line();
                one.sku = l.sku;
                one.quantity = 1;
                out.add(one);
            }
        }
        return out;
    }

    @Override
    public Map<String, Integer> counts(Map<String, Integer> counts) {
        Map<String, Integer> out = new HashMap<>();
        counts.forEach((k, v) -> out.put(k.toUpperCase(), v + 1));
        return out;
    }

    @Override
    public String nothing(String value) {
        return value;
    }

    @Override
    public String kind(Shape shape) {
        return shape.getClass().getName() + ":" + shape.name;
    }

    @Override
    public void reserve(String sku) throws OutOfStock {
        throw new OutOfStock("no " + sku);
    }

    @Override
    public String over(int x) {
        return "int " + x;
    }

    @Override
    public String over(String x) {
        return "string " + x;
    }
}
