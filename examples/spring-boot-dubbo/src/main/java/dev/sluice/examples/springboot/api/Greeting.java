package dev.sluice.examples.springboot.api;

import java.io.Serializable;

/** A reply of {@link Greeter}: a plain serializable Java object (Dubbo's default serialization is hessian2). */
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

    /** The provider application that answered. */
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
