package dev.sluice.it.generic;

import java.io.Serializable;

/**
 * Stands for a gadget class a generic caller names in a {@code "class"} entry: its static initializer leaves a
 * trace. The scenarios name it only as a string, so any trace means a provider loaded and initialized it.
 */
public class GenericGadget implements Serializable {
    public static final String TRACE = "sluice.test.generic-gadget.initialized";
    private static final long serialVersionUID = 1L;

    static {
        System.setProperty(TRACE, "true");
    }

    String command;
}
