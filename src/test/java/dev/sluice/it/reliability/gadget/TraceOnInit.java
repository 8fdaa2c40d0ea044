package dev.sluice.it.reliability.gadget;

import java.io.Serializable;

/**
 * Stands for a gadget: its static initializer leaves a trace. Tests only ever name it in bytes on the wire, so the
 * trace, or the class showing up as loaded, means an endpoint loaded a class a peer named.
 */
public class TraceOnInit implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final String TRACE = "sluice.it.gadget.initialized";

    static {
        System.setProperty(TRACE, "true");
    }

    private String command;
}
