package dev.sluice.it.reliability;

import dev.sluice.it.rpc.model.Item;
import java.math.BigDecimal;

/** A subclass of a registered type that no service declares: refused unless allowed explicitly. */
public class SneakyItem extends Item {
    private static final long serialVersionUID = 1L;
    private String payload = "touch /tmp/pwned";

    public SneakyItem() {
        super("sneaky", BigDecimal.ONE, null, null, null);
    }

    public String getPayload() {
        return payload;
    }
}
