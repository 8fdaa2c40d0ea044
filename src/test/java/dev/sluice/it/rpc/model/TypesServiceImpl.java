package dev.sluice.it.rpc.model;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The reference implementation; attachments are read and written through a pluggable accessor so the same class
 * serves the standalone server (SluiceContext) and Dubbo providers (RpcContext).
 */
public class TypesServiceImpl implements TypesService {
    /** Reads a request attachment and adds a response attachment, for whichever RPC framework runs us. */
    public interface Attachments {
        String get(String key);

        void reply(String key, String value);
    }

    private final Attachments attachments;
    private final Executor asyncExecutor;
    /** Counted down by {@link #fire}; tests await it. */
    public final CountDownLatch fired = new CountDownLatch(1);
    /** {@link #slow} waits on this, then up to its argument in millis. */
    public volatile CountDownLatch gate = new CountDownLatch(0);

    public TypesServiceImpl(Attachments attachments, Executor asyncExecutor) {
        this.attachments = attachments;
        this.asyncExecutor = asyncExecutor;
    }

    @Override
    public int primitives(int i, long l, double d, float f, boolean b, byte by, short s, char c) {
        return (int) (i + l + (long) d + (long) f + (b ? 1 : 0) + by + s + c);
    }

    @Override
    public String echo(String s) {
        return s;
    }

    @Override
    public LocalDateTime time(LocalDate date, LocalTime time, LocalDateTime dateTime, Instant instant) {
        if (!dateTime.equals(LocalDateTime.of(date, time))) {
            throw new IllegalArgumentException("date/time mismatch: " + date + " " + time + " vs " + dateTime);
        }
        return dateTime.plusSeconds(instant.getEpochSecond() % 60);
    }

    @Override
    public BigDecimal money(BigDecimal a, BigInteger b) {
        return a.add(new BigDecimal(b));
    }

    @Override
    public Color color(Color c) {
        return Color.values()[(c.ordinal() + 1) % Color.values().length];
    }

    @Override
    public List<String> list(List<String> in) {
        List<String> out = new ArrayList<>(in);
        out.add("end");
        return out;
    }

    @Override
    public Map<String, Long> map(Map<String, Long> in) {
        Map<String, Long> out = new HashMap<>(in);
        out.put("size", (long) in.size());
        return out;
    }

    @Override
    public Set<Integer> set(Set<Integer> in) {
        return in;
    }

    @Override
    public int[] ints(int[] in) {
        int[] out = in.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] *= 2;
        }
        return out;
    }

    @Override
    public String[] strings(String[] in) {
        return in;
    }

    @Override
    public Item item(Item in) {
        return in;
    }

    @Override
    public Box<Item> box(Box<Item> in) {
        return in;
    }

    @Override
    public List<Item> items(int n) {
        List<Item> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Item("item" + i, BigDecimal.valueOf(i, 2), Color.values()[i % 3], null, null));
        }
        return out;
    }

    @Override
    public String nullable(String maybeNull) {
        return maybeNull == null ? null : maybeNull + "!";
    }

    @Override
    public void nothing(String ignored) {
    }

    @Override
    public int fail(String kind) throws InsufficientFundsException {
        switch (kind) {
            case "state":
                throw new IllegalStateException("boom: illegal state");
            case "arg":
                throw new IllegalArgumentException("boom: bad argument");
            case "funds":
                throw new InsufficientFundsException("balance 3 < 5");
            default:
                return 0;
        }
    }

    @Override
    public CompletableFuture<String> async(String s, int delayMillis) {
        CompletableFuture<String> f = new CompletableFuture<>();
        asyncExecutor.execute(() -> {
            try {
                if (delayMillis > 0) {
                    new CountDownLatch(1).await(delayMillis, TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            f.complete("async:" + s);
        });
        return f;
    }

    @Override
    public String attachment(String key) {
        String value = attachments.get(key);
        attachments.reply("served", "yes:" + value);
        return value;
    }

    @Override
    public String slow(int millis) {
        try {
            gate.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "slow:" + millis;
    }

    @Override
    public void fire(String tag) {
        fired.countDown();
    }
}
