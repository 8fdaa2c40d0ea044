package dev.sluice.it.reliability;

import static dev.sluice.codec.dubbo.TestBytes.concat;

import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * How much event-loop time one request frame costs a {@link SluiceServer}, which decodes request bodies on its loop:
 * a typical call, and the costliest 8 MiB frames (the default payload limit) the bounds walkers still let through to
 * hessian-lite, measured as the CPU time of the server's only loop thread while it reads, decodes and answers each
 * frame. A reference for docs/ARCHITECTURE.md's decision on where bodies are decoded; run by {@code hostile.sh
 * decode-cost}, not part of the test suite. Prints one line per shape: frames sent, status answered, loop CPU per
 * frame (median and worst), and per byte.
 */
public final class LoopDecodeCost {
    private static final String PATH = HostileService.class.getName();
    private static final int LIMIT = 8 * 1024 * 1024;
    private static final String SIZE_DESC = "Ljava/util/List;";

    private LoopDecodeCost() {
    }

    public static void main(String[] args) throws Exception {
        NativeTransport kind = EventLoops.resolve(NativeTransport.EPOLL);
        try (SluiceServer server = SluiceServer.builder().port(0)
                .options(TransportOptions.builder().nativeTransport(kind).ioThreads(1).build())
                .register(HostileService.class, new HostileService.Impl()).start()) {
            System.out.println("server: SluiceServer on " + kind + ", one event loop, payload limit " + LIMIT);
            Map<String, IntFunction<byte[]>> typical = new LinkedHashMap<>();
            typical.put("typical: hessian2 size(list of 10 short strings)", id -> sizeCall(id, smallList()));
            typical.put("typical: fastjson2 twice(long)", id -> Wire.request(id, HostileService.class, "twice", 21L));
            for (Map.Entry<String, IntFunction<byte[]>> e : typical.entrySet()) {
                measure(server.port(), e.getKey(), e.getValue(), 20_000, 10_000); // warm, then measured
            }
            Map<String, byte[]> hostile = new LinkedHashMap<>();
            hostile.put("8 MiB: BigDecimals of 1,000 digits (the digit cap)", list(LIMIT, bigDecimals(1_000)));
            hostile.put("8 MiB: BigDecimals of 1,001 digits (one over the cap)", list(LIMIT, bigDecimals(1_001)));
            hostile.put("8 MiB: empty lists and maps", list(LIMIT, emptyContainers()));
            hostile.put("empty lists and maps, 990,000 (under a budget of 1,000,000 values)",
                    list(LIMIT, emptyContainers(), 990_000));
            hostile.put("8 MiB: map keys that share one hash code", list(LIMIT, collidingMap()));
            hostile.put("8 MiB: one string of 3-byte characters", list(LIMIT, oneString()));
            hostile.put("8 MiB: short strings", list(LIMIT, shortStrings()));
            for (Map.Entry<String, byte[]> e : hostile.entrySet()) {
                byte[] frame = e.getValue();
                measure(server.port(), e.getKey(), id -> withId(frame, id), 2, 5);
            }
        }
    }

    /** Sends {@code warm} frames unmeasured, then {@code count} one at a time, each answer awaited; prints costs. */
    private static void measure(int port, String name, IntFunction<byte[]> frames, int warm, int count)
            throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long loop = loopThread();
        long[] cpu = new long[count];
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        long bytes = 0;
        String error = null;
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(120_000);
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int i = 0; i < warm + count; i++) {
                byte[] f = frames.apply(i + 1);
                long before = mx.getThreadCpuTime(loop);
                out.write(f);
                Wire.Frame answer = Wire.read(in);
                long spent = mx.getThreadCpuTime(loop) - before;
                if (i >= warm) {
                    cpu[i - warm] = spent;
                    bytes = f.length;
                    statuses.merge(answer.status(), 1, Integer::sum);
                    if (answer.status() != 20 && error == null) {
                        String text = new String(answer.body(), java.nio.charset.StandardCharsets.UTF_8);
                        error = text.substring(0, Math.min(200, text.length())).replaceAll("\\p{Cntrl}", "");
                    }
                }
            }
        }
        Arrays.sort(cpu);
        long median = cpu[count / 2];
        long worst = cpu[count - 1];
        System.out.println(String.format(Locale.ROOT, "%-58s frame %,9d B  status %s  loop CPU median %,10.1f us"
                + "  worst %,10.1f us  (%.1f ns/B)", name, bytes, statuses, median / 1e3, worst / 1e3,
                (double) median / bytes));
        if (error != null) {
            System.out.println("    refused: " + error);
        }
    }

    private static long loopThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("sluice-server")) {
                return t.getId();
            }
        }
        throw new IllegalStateException("no sluice-server thread");
    }

    /** A hessian2 {@code size(values)} call. */
    private static byte[] sizeCall(long id, byte[] list) {
        byte[] body = concat(Wire.hessian2("2.0.2", PATH, "0.0.0", "size", SIZE_DESC), list, new byte[] {'H', 'Z'});
        return concat(Wire.header(0xc2, 0, id, body.length), body);
    }

    private static byte[] withId(byte[] frame, long id) {
        byte[] copy = frame.clone();
        java.nio.ByteBuffer.wrap(copy).putLong(4, id);
        return copy;
    }

    private static byte[] smallList() {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            values.add("value number " + i);
        }
        return Wire.hessian2(values);
    }

    /** Items of a list (item 0 first, then item 1 repeated), as a source of bytes. */
    private interface Items {
        byte[] first();

        byte[] next();

        /** Bytes that close what the items opened. */
        default byte[] end() {
            return new byte[0];
        }
    }

    /**
     * A {@code size(list)} frame whose list holds as many items as fit in {@code limit} bytes of body: a
     * fixed-length untyped list ('X', its length, the items).
     */
    private static byte[] list(int limit, Items items) {
        return list(limit, items, Integer.MAX_VALUE);
    }

    /** As {@link #list(int, Items)}, with at most {@code maxCount} items. */
    private static byte[] list(int limit, Items items, int maxCount) {
        byte[] head = Wire.hessian2("2.0.2", PATH, "0.0.0", "size", SIZE_DESC);
        ByteArrayOutputStream values = new ByteArrayOutputStream(limit);
        values.writeBytes(items.first());
        int count = 1;
        byte[] next = items.next();
        int reserve = head.length + 1 + 5 + items.end().length + 2;
        while (values.size() + next.length + reserve <= limit && count < maxCount) {
            values.writeBytes(next);
            count++;
            next = items.next();
        }
        byte[] end = items.end();
        if (end.length > 0) {
            count = 1; // the items were the entries of one container, the list's only element
        }
        byte[] body = concat(head, new byte[] {'X'}, Wire.hessian2(count), values.toByteArray(), end,
                new byte[] {'H', 'Z'});
        return concat(Wire.header(0xc2, 0, 1, body.length), body);
    }

    private static Items bigDecimals(int digits) {
        String value = "7".repeat(digits);
        byte[] def = concat(new byte[] {'C'}, Wire.hessian2("java.math.BigDecimal"), new byte[] {(byte) 0x91},
                Wire.hessian2("value"));
        byte[] instance = concat(new byte[] {0x60}, Wire.hessian2(value));
        return new Items() {
            public byte[] first() {
                return concat(def, instance);
            }

            public byte[] next() {
                return instance;
            }
        };
    }

    private static Items emptyContainers() {
        return new Items() {
            private boolean map;

            public byte[] first() {
                return new byte[] {0x78};
            }

            public byte[] next() {
                map = !map;
                return map ? new byte[] {'H', 'Z'} : new byte[] {0x78};
            }
        };
    }

    /** One map whose keys ("Aa" and "BB" in 18 positions) all have the same {@code String.hashCode()}. */
    private static Items collidingMap() {
        return new Items() {
            private int n;

            public byte[] first() {
                return concat(new byte[] {'H'}, key(n++), new byte[] {'N'});
            }

            public byte[] next() {
                return concat(key(n++), new byte[] {'N'}); // 2^18 keys would not fit in 8 MiB
            }

            public byte[] end() {
                return new byte[] {'Z'};
            }

            private byte[] key(int i) {
                StringBuilder k = new StringBuilder(36);
                for (int b = 0; b < 18; b++) {
                    k.append((i >> b & 1) == 0 ? "Aa" : "BB");
                }
                return Wire.hessian2(k.toString());
            }
        };
    }

    private static Items oneString() {
        return new Items() {
            private boolean done;

            public byte[] first() {
                done = true;
                return Wire.hessian2("\u20ac".repeat((LIMIT - 4096) / 3));
            }

            public byte[] next() {
                return done ? new byte[] {'N'} : new byte[0];
            }
        };
    }

    private static Items shortStrings() {
        return new Items() {
            private int n;

            public byte[] first() {
                return next();
            }

            public byte[] next() {
                return Wire.hessian2("s" + (n++ % 1000));
            }
        };
    }
}
