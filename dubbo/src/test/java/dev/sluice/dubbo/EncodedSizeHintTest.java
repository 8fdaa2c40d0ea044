package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class EncodedSizeHintTest {

    @Test
    void startsAtTheMinimumAndGrowsAtOnceToFitALargerFrameWithHeadroom() {
        EncodedSizeHint hint = new EncodedSizeHint();
        assertEquals(EncodedSizeHint.MIN, hint.get());
        hint.record(100);
        assertEquals(EncodedSizeHint.MIN, hint.get(), "never below the minimum");
        hint.record(5000);
        assertEquals(5632, hint.get(), "5000 + 625 rounded up to 64");
        assertTrue(hint.get() >= 5000);
    }

    @Test
    void shrinksBySixteenthsSoOneSmallFrameDoesNotUndoTheFit() {
        EncodedSizeHint hint = new EncodedSizeHint();
        hint.record(16_000); // fit 18 048
        int large = hint.get();
        hint.record(300);
        assertEquals(large - (large >> 4), hint.get());
        for (int i = 0; i < 200; i++) {
            hint.record(300);
        }
        assertEquals(EncodedSizeHint.fit(300), hint.get(), "settles at the small frames' fit");
    }

    @Test
    void neverReservesMoreThanTheMaximum() {
        EncodedSizeHint hint = new EncodedSizeHint();
        hint.record(4 << 20);
        assertEquals(EncodedSizeHint.MAX, hint.get());
        assertEquals(EncodedSizeHint.MAX, EncodedSizeHint.fit(Integer.MAX_VALUE));
    }
}
