package dev.sluice.it.reliability.gadget;

import java.util.Hashtable;
import javax.naming.Context;
import javax.naming.NamingException;
import javax.naming.spi.InitialContextFactory;

/**
 * Installed as the JNDI initial context factory while the deserialization tests run: JNDI gadgets
 * ({@code JdbcRowSetImpl} and friends) reach the network through {@code new InitialContext()}, which would land here
 * and leave a trace instead.
 */
public class TrapContextFactory implements InitialContextFactory {
    public static final String TRACE = "sluice.it.jndi.used";

    @Override
    public Context getInitialContext(Hashtable<?, ?> environment) throws NamingException {
        System.setProperty(TRACE, String.valueOf(environment));
        throw new NamingException("JNDI is a trap in this test");
    }
}
