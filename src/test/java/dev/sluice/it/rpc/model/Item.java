package dev.sluice.it.rpc.model;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A nested POJO with generic fields. */
public class Item implements Serializable {
    private static final long serialVersionUID = 1L;
    private String name;
    private BigDecimal price;
    private Color color;
    private List<Item> children;
    private Map<String, Integer> counts;

    public Item() {
    }

    public Item(String name, BigDecimal price, Color color, List<Item> children, Map<String, Integer> counts) {
        this.name = name;
        this.price = price;
        this.color = color;
        this.children = children;
        this.counts = counts;
    }

    public String getName() {
        return name;
    }

    public BigDecimal getPrice() {
        return price;
    }

    public Color getColor() {
        return color;
    }

    public List<Item> getChildren() {
        return children;
    }

    public Map<String, Integer> getCounts() {
        return counts;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Item)) {
            return false;
        }
        Item i = (Item) o;
        return Objects.equals(name, i.name) && Objects.equals(price, i.price) && color == i.color
                && Objects.equals(children, i.children) && Objects.equals(counts, i.counts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, price, color);
    }

    @Override
    public String toString() {
        return "Item{" + name + ", " + price + ", " + color + ", children=" + children + ", counts=" + counts + "}";
    }
}
