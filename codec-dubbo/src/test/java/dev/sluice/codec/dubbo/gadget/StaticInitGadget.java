package dev.sluice.codec.dubbo.gadget;

import java.io.Serializable;

/**
 * Stands for a gadget class: its static initializer leaves a trace. Tests name it only as a string, so any trace
 * means the codec loaded and initialized a class a peer named.
 */
public class StaticInitGadget implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final String TRACE = "sluice.test.gadget.initialized";

    static {
        System.setProperty(TRACE, "true");
    }

    private String command;
}
