package dev.sluice.examples.standalone;

import java.io.Serializable;

/** A reply of {@link Greeter}: a plain Java object with a no-argument constructor and getters/setters. */
public class Greeting implements Serializable {
    private static final long serialVersionUID = 1L;

    private String message;
    private String servedBy;

    public Greeting() {
    }

    public Greeting(String message, String servedBy) {
        this.message = message;
        this.servedBy = servedBy;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    /** The name of the server thread that ran the service method. */
    public String getServedBy() {
        return servedBy;
    }

    public void setServedBy(String servedBy) {
        this.servedBy = servedBy;
    }

    @Override
    public String toString() {
        return message + " (served by " + servedBy + ")";
    }
}
