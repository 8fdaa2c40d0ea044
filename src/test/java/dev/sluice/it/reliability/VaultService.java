package dev.sluice.it.reliability;

import dev.sluice.it.rpc.model.Item;

/** What the deserialization tests call: an Object parameter (any typed value is looked at), a registered type. */
public interface VaultService {
    /** The class of what arrived. */
    String store(Object value);

    Item keep(Item item);

    /** Whatever the provider returns, as Object. */
    Object fetch(String what);
}
