package dev.sluice.it.generic;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the providers of the generic-call checks export (a {@code SluiceServer} and a Dubbo 3.3.6 provider in
 * {@link GenericInteropScenario}, the {@code SluiceServer} of the Dubbo 2.7 run); {@code prefix} tells the
 * version-2.0 one apart.
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
        out.setId(order.getId() + 1);
        out.setCustomer(order.getCustomer().toUpperCase());
        for (Line l : order.getLines()) {
            Line c = new Line();
            c.setSku(l.getSku());
            c.setQuantity(l.getQuantity() * 2);
            out.getLines().add(c);
        }
        return out;
    }

    @Override
    public List<Line> split(List<Line> lines) {
        List<Line> out = new ArrayList<>();
        for (Line l : lines) {
            for (int i = 0; i < l.getQuantity(); i++) {
                Line one = new Line();
                one.setSku(l.getSku());
                one.setQuantity(1);
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
        return shape.getClass().getName() + ":" + shape.getName();
    }

    @Override
    public void reserve(String sku) throws OutOfStock {
        throw new OutOfStock("no " + sku);
    }
}
