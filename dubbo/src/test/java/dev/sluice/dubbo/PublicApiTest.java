package dev.sluice.dubbo;

import dev.sluice.testing.PublicApi;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** This artifact's public API is the list in public-api.txt beside this class, no more (see {@link PublicApi}). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PublicApiTest {
    @Test
    void everyPublicTypeOutsideInternalIsAListedDecision() throws Exception {
        PublicApi.assertListed(SluiceTransporter.class, PublicApiTest.class);
    }
}
