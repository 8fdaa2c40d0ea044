package dev.sluice.codec.dubbo;

import dev.sluice.transport.SluiceException;

/**
 * A peer sent a typed value whose class is not on the {@link ClassAllowlist}. Raised by the allowlist inside
 * fastjson2 on the decoding thread, before the named class is loaded; the decoder turns it into a broken request
 * (status 40) or a failed response (status 90).
 */
public class ClassNotAllowedException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final String typeName;

    public ClassNotAllowedException(String typeName) {
        super("Refused to deserialize type '" + typeName + "': not reachable from a registered service interface"
                + " and not in the JDK allowlist; register the interface (ClassAllowlist.register) or allow the"
                + " class explicitly (ClassAllowlist.allow)");
        this.typeName = typeName;
    }

    /** The type name as it appeared on the wire. */
    public String typeName() {
        return typeName;
    }
}
