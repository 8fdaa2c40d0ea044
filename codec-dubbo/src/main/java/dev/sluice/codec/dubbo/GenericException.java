package dev.sluice.codec.dubbo;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * The failure of a generic call ({@code $invoke}), as Dubbo's {@code GenericFilter} reports it: the class name and
 * message of the exception the service threw, with no class of the service needed to read it. On the wire it is
 * Dubbo's own {@value #DUBBO_NAME} (the class every Dubbo 2.7 and 3.x distribution has; a 3.3 provider with Dubbo's
 * compatibility classes sends its subclass {@value #DUBBO2_NAME}, read here as this class too). The codec writes and
 * reads it under those names, field by field ({@code detailMessage}, {@code exceptionClass},
 * {@code exceptionMessage}), so no Dubbo class is needed on either side; a Dubbo consumer gets its own
 * {@code GenericException} with {@link #getExceptionClass()} and {@link #getExceptionMessage()} as here.
 *
 * <p>Thrown to the caller of {@code SluiceClient}'s generic calls; sent by a {@code SluiceServer} when the target of
 * a generic call throws. Immutable once read; any thread.
 */
public class GenericException extends RuntimeException {
    /** The name Dubbo's consumers know in every version: the one written. */
    public static final String DUBBO_NAME = "org.apache.dubbo.rpc.service.GenericException";
    /** The compatibility subclass a Dubbo 3.3 provider sends when Dubbo 2's classes are present: read as this. */
    public static final String DUBBO2_NAME = "com.alibaba.dubbo.rpc.service.GenericException";
    private static final long serialVersionUID = -1182299763306599962L;

    private String exceptionClass;
    private String exceptionMessage;

    /** For readers: fields are set from the wire. */
    protected GenericException() {
        super((String) null, null);
    }

    /**
     * For readers that set the message through a constructor (fastjson2's, which needs it public): the other fields
     * come from the wire.
     */
    public GenericException(String message) {
        super(message, null);
    }

    /**
     * @param exceptionClass the class name of the exception the service threw
     * @param exceptionMessage its message
     * @param message this exception's own message; Dubbo's is the thrown exception's printed stack trace
     */
    public GenericException(String exceptionClass, String exceptionMessage, String message) {
        super(message, null);
        this.exceptionClass = exceptionClass;
        this.exceptionMessage = exceptionMessage;
    }

    /** What Dubbo's {@code GenericFilter} makes of {@code thrown}: its class, its message, its stack trace as text. */
    public static GenericException of(Throwable thrown) {
        StringWriter text = new StringWriter();
        try (PrintWriter w = new PrintWriter(text)) {
            thrown.printStackTrace(w);
        }
        return new GenericException(thrown.getClass().getName(), thrown.getMessage(), text.toString());
    }

    /** The class name of the exception the service threw. */
    public String getExceptionClass() {
        return exceptionClass;
    }

    /** The message of the exception the service threw. */
    public String getExceptionMessage() {
        return exceptionMessage;
    }

    @Override
    public String toString() {
        return getClass().getName() + ": " + exceptionClass + ": " + exceptionMessage;
    }
}
