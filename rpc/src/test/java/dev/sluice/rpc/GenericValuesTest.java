package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.ClassNotAllowedException;
import dev.sluice.codec.dubbo.gadget.StaticInitGadget;
import dev.sluice.codec.dubbo.model.Animal;
import dev.sluice.codec.dubbo.model.Color;
import java.io.Serializable;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The generic-form conversion of issue 34 on its own: arguments to declared types (numbers that must fit, strings,
 * enums, nested POJOs in lists and maps), results to maps with {@code "class"}, the allowlist for every
 * {@code "class"} named at any depth (the refused class is never initialized), and the bounds that stop a cyclic or
 * exploding value in bounded time instead of a stack overflow or a loop.
 */
@Timeout(30)
class GenericValuesTest {
    private static final String GADGET = "dev.sluice.codec.dubbo.gadget.StaticInitGadget";

    public static class Node implements Serializable {
        private static final long serialVersionUID = 1L;
        String name;
        Node next;
        List<Node> children = new ArrayList<>();
        Map<String, Integer> scores;
        Color color;
        int[] weights;
    }

    /** Exposes the parameter types of a method, so the conversions see real generic types. */
    interface Shapes {
        void take(List<Node> nodes, Map<String, Node> byName, Set<Long> ids, Object any, Animal animal, int small);
    }

    private static final ClassAllowlist ALLOWLIST = ClassAllowlist.strict().register(Shapes.class);
    private final GenericValues values = new GenericValues(ALLOWLIST);

    private static Type param(int i) {
        return Shapes.class.getDeclaredMethods()[0].getGenericParameterTypes()[i];
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void nestedPojosInListsAndMapsBecomeTheirDeclaredTypes() {
        Map<String, Object> child = map("name", "c", "color", "RED", "weights", new ArrayList<>(List.of(1, 2)));
        Map<String, Object> root = map("class", Node.class.getName(), "name", "r", "next", child,
                "children", new ArrayList<>(List.of(child)), "scores", map("a", 1L), "unknown", "ignored");
        @SuppressWarnings("unchecked")
        List<Node> nodes = (List<Node>) values.realize(new ArrayList<>(List.of(root)), param(0));
        Node r = nodes.get(0);
        assertEquals("r", r.name);
        assertEquals("c", r.next.name);
        assertEquals(Color.RED, r.next.color);
        assertEquals(2, r.next.weights[1]);
        assertInstanceOf(Node.class, r.children.get(0));
        assertEquals(Integer.valueOf(1), r.scores.get("a"));

        @SuppressWarnings("unchecked")
        Map<String, Node> byName = (Map<String, Node>) values.realize(map("x", map("name", "n")), param(1));
        assertEquals("n", byName.get("x").name);
        assertEquals(Set.of(1L, 2L), values.realize(new ArrayList<>(List.of(1, "2")), param(2)));
        assertEquals(7, values.realize("7", param(5)));
    }

    @Test
    void numbersThatDoNotFitAreRefusedNamingThePosition() {
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> values.realize(1L << 40, param(5)));
        assertTrue(big.getMessage().contains("does not fit in Integer"), big.getMessage());
        IllegalArgumentException fraction = assertThrows(IllegalArgumentException.class,
                () -> values.realize(new ArrayList<>(List.of(map("name", "a", "weights",
                        new ArrayList<>(List.of(1, 2.5))))), param(0)));
        assertTrue(fraction.getMessage().contains("at [0].weights[1]"), fraction.getMessage());
    }

    @Test
    void resultsBecomeMapsWithTheirClassRecursively() {
        Node n = new Node();
        n.name = "a";
        n.color = Color.GREEN;
        Node c = new Node();
        c.name = "b";
        n.children.add(c);
        n.weights = new int[] {3};
        Map<?, ?> g = (Map<?, ?>) GenericValues.generalize(List.of(n).get(0));
        assertEquals(Node.class.getName(), g.get("class"));
        assertEquals("GREEN", g.get("color"));
        assertNull(g.get("next"));
        assertEquals("b", ((Map<?, ?>) ((List<?>) g.get("children")).get(0)).get("name"));
        assertEquals(3, ((int[]) g.get("weights"))[0]);
    }

    @Test
    void aCyclicResultStopsAtTheDepthBoundInsteadOfLooping() {
        Node n = new Node();
        n.next = n;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GenericValues.generalize(n));
        assertTrue(e.getMessage().contains("nested deeper than " + GenericValues.MAX_DEPTH), e.getMessage());
    }

    @Test
    void aCyclicArgumentStopsAtTheDepthBoundInsteadOfOverflowingTheStack() {
        Map<String, Object> self = new HashMap<>();
        self.put("next", self);
        self.put("name", "loop");
        IllegalArgumentException pojo = assertThrows(IllegalArgumentException.class,
                () -> values.realize(new ArrayList<>(List.of(self)), param(0)));
        assertTrue(pojo.getMessage().contains("nested deeper than"), pojo.getMessage());
        IllegalArgumentException untyped = assertThrows(IllegalArgumentException.class,
                () -> values.realize(self, param(3)));
        assertTrue(untyped.getMessage().contains("nested deeper than"), untyped.getMessage());
    }

    @Test
    void aValueSharingItsPartsExponentiallyStopsAtTheSizeBound() {
        List<Object> shared = new ArrayList<>(List.of(1));
        for (int i = 0; i < 40; i++) { // 2^40 elements if walked; 41 lists in memory
            shared = new ArrayList<>(List.of(shared, shared));
        }
        List<Object> value = shared;
        IllegalArgumentException in = assertThrows(IllegalArgumentException.class, () -> values.realize(value,
                param(3)));
        assertTrue(in.getMessage().contains("more than " + GenericValues.MAX_NODES + " values"), in.getMessage());
        IllegalArgumentException out = assertThrows(IllegalArgumentException.class,
                () -> GenericValues.generalize(value));
        assertTrue(out.getMessage().contains("more than " + GenericValues.MAX_NODES + " values"), out.getMessage());
    }

    @Test
    void aClassNamedAnywhereMustPassTheAllowlistAndIsNeverLoadedWhenRefused() {
        Map<String, Object> gadget = map("class", GADGET, "command", "touch /tmp/pwned");
        ClassNotAllowedException top = assertThrows(ClassNotAllowedException.class,
                () -> values.realize(gadget, param(4)));
        assertEquals(GADGET, top.typeName());
        ClassNotAllowedException deep = assertThrows(ClassNotAllowedException.class,
                () -> values.realize(map("k", new ArrayList<>(List.of(map("x", gadget)))), param(3)));
        assertEquals(GADGET, deep.typeName());
        ClassNotAllowedException inPojo = assertThrows(ClassNotAllowedException.class,
                () -> values.realize(new ArrayList<>(List.of(map("next", gadget))), param(0)));
        assertEquals(GADGET, inPojo.typeName());
        assertNull(System.getProperty(StaticInitGadget.TRACE), "the gadget class was initialized");

        IllegalArgumentException notASubtype = assertThrows(IllegalArgumentException.class,
                () -> values.realize(map("class", Node.class.getName()), param(4)));
        assertTrue(notASubtype.getMessage().contains("is not a " + Animal.class.getName()),
                notASubtype.getMessage());
    }
}
