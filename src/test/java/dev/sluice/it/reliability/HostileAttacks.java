package dev.sluice.it.reliability;

import static dev.sluice.codec.dubbo.TestBytes.concat;

import com.alibaba.fastjson2.JSONB;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The attacks of docs/reliability.md H35, as real bytes on real sockets against a Dubbo-protocol
 * server exporting {@link HostileService}: a Sluice server, Dubbo with the {@code sluice} Transporter, or plain
 * Dubbo 3.3.6. Each attack runs while a well-behaved peer calls {@code $echo} on its own connection (the
 * {@link Probe}), and returns a {@link Result}: the bytes it sent and what they cost the server
 * ({@link HostileCost}), whether the well-behaved peer was answered promptly, and whether the server still serves.
 * The server must run in this JVM (its costs are read from this JVM's MXBeans). Bounds are the caller's.
 *
 * <p>Threads: {@link #run} blocks the calling thread; the attacker's writer and the probe are daemon threads named
 * {@code hostile-*}, whose CPU is taken out of the server's.
 */
final class HostileAttacks {
    /** How many digits a number-text attack sends. */
    static final int DIGITS = 200_000;
    /** Frames per number-text attack. */
    static final int NUMBER_FRAMES = 3;
    /** Requests with distinct dotless type names. */
    static final int TYPE_NAMES = 10_000;
    /** Length of each dotless type name. */
    static final int TYPE_NAME_CHARS = 400;
    /**
     * Lengths of the runs of class definitions, one connection each: which length overflows a thread's stack
     * depends on how far the code has been compiled, so the runs cover the range up to the walker's cap of 4,096.
     */
    static final int[] CLASS_DEFINITIONS = {1_000, 2_000, 3_000, 4_000, 4_090};
    /** Empty lists and maps in the decoded-size frame. */
    static final int EMPTY_CONTAINERS = 1_000_000;
    /**
     * Most bytes of two-way heartbeats a never-reading peer tries to send: more than the kernel's socket buffers on
     * both sides hold (a few MiB on loopback), so the answers must queue in the server.
     */
    static final int HEARTBEAT_BYTES = 16 * 1024 * 1024;
    /** Body bytes a trickling peer sends at once (of a frame declaring twice as many). */
    static final int TRICKLE_BYTES = 512 * 1024;

    private static final String ECHO_DESC = "Ljava/lang/Object;";
    private static final AtomicLong IDS = new AtomicLong(1_000);

    /** One attack, named as in docs/reliability.md. */
    enum Attack {
        /** (a) hessian2 BigDecimal of {@value #DIGITS} digits to {@code $echo}. */
        BIG_DECIMAL_DIGITS,
        /** (b) fastjson2 number text of {@value #DIGITS} digits where a {@code long} is expected. */
        LONG_DIGITS,
        /** (c) {@value #TYPE_NAMES} requests each naming a new hessian2 type without a dot. */
        DOTLESS_TYPE_NAMES,
        /** (d) runs of up to 4,090 hessian2 class definitions, each followed by a plain call. */
        CLASS_DEFINITION_RUN,
        /** (e) one frame of {@value #EMPTY_CONTAINERS} empty lists and maps. */
        EMPTY_CONTAINERS,
        /** (f) a peer that never reads and streams two-way heartbeats. */
        UNREAD_HEARTBEATS,
        /** (g) a peer that sends half a body, then trickles. */
        TRICKLED_BODY
    }

    /** Where the server is: its address, its loop threads' name prefix, and the frame timeout it applies. */
    record Target(String host, int port, String loopPrefix, long frameTimeoutMillis) {
    }

    /** What one attack sent and cost, and how the server behaved meanwhile. */
    record Result(Attack attack, long bytesSent, long loopCpuNanos, long serverCpuNanos, long loopAllocated,
            long heapHeld, long directHeld, long directAfter, long logLines, long probeCalls, long probeMaxMillis,
            long probeFailures, String outcome, boolean servesAfter) {
        double loopCpuNanosPerByte() {
            return (double) loopCpuNanos / bytesSent;
        }

        double serverCpuNanosPerByte() {
            return (double) serverCpuNanos / bytesSent;
        }

        /** As {@code RESULT} line key-values (see {@code Scenario.ok}). */
        Object[] keyValues() {
            return new Object[] {"bytesSent", bytesSent, "loopCpuMs", loopCpuNanos / 1_000_000,
                "serverCpuMs", serverCpuNanos / 1_000_000, "loopNsPerByte", Math.round(loopCpuNanosPerByte()),
                "serverNsPerByte", Math.round(serverCpuNanosPerByte()), "loopAllocPerByte",
                String.format(java.util.Locale.ROOT, "%.1f", (double) loopAllocated / bytesSent),
                "heapHeldKiB", heapHeld / 1024, "directHeldKiB", directHeld / 1024, "directAfterKiB",
                directAfter / 1024, "logLines", logLines, "probeCalls", probeCalls, "probeMaxMs", probeMaxMillis,
                "probeFailures", probeFailures, "outcome", outcome, "servesAfter", servesAfter};
        }

        @Override
        public String toString() {
            Object[] kv = keyValues();
            Map<Object, Object> m = new LinkedHashMap<>();
            for (int i = 0; i < kv.length; i += 2) {
                m.put(kv[i], kv[i + 1]);
            }
            return attack + " " + m;
        }
    }

    private HostileAttacks() {
    }

    /** Runs {@code attack} against {@code target}, measuring; the server must run in this JVM. */
    static Result run(Attack attack, Target target, String servicePath) throws Exception {
        HostileCost.countLogs();
        Attacker attacker = new Attacker(target, servicePath);
        attacker.prepare(attack);
        HostileCost.Snapshot before = HostileCost.Snapshot.take(target.loopPrefix(), true);
        long attackerCpuBefore = attacker.ownCpu();
        Probe probe = new Probe(target, servicePath);
        probe.start();
        String outcome;
        HostileCost.Snapshot end;
        HostileCost.Snapshot held;
        long attackerCpu;
        try {
            try {
                outcome = attacker.attack(attack);
            } finally {
                probe.stop();
            }
            end = HostileCost.Snapshot.take(target.loopPrefix(), false); // CPU before the GCs below
            attackerCpu = attacker.ownCpu() - attackerCpuBefore + probe.cpu();
            held = HostileCost.Snapshot.take(target.loopPrefix(), true); // while the attacker still holds its sockets
        } finally {
            attacker.close();
        }
        boolean serves = echoes(target, servicePath, "after");
        HostileCost.Snapshot settled = settledDirect(target, before.direct());
        return new Result(attack, attacker.sent.get(), end.loopCpuNanos() - before.loopCpuNanos(),
                end.processCpuNanos() - before.processCpuNanos() - attackerCpu,
                end.loopAllocated() - before.loopAllocated(), held.heapUsed() - before.heapUsed(),
                held.direct() - before.direct(), settled.direct() - before.direct(),
                end.logLines() - before.logLines(), probe.calls.get(),
                TimeUnit.NANOSECONDS.toMillis(probe.maxNanos.get()), probe.failures.get(), outcome, serves);
    }

    /** Waits up to 5 s for the server's direct memory to return near {@code baseline}; the last reading. */
    private static HostileCost.Snapshot settledDirect(Target target, long baseline) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        HostileCost.Snapshot s = HostileCost.Snapshot.take(target.loopPrefix(), false);
        while (s.direct() - baseline > 256 * 1024 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            s = HostileCost.Snapshot.take(target.loopPrefix(), false);
        }
        return s;
    }

    /** True when a fresh connection's {@code $echo(text)} is answered with status 20 within 5 s. */
    static boolean echoes(Target target, String servicePath, String text) {
        try (Socket s = connect(target, 0)) {
            s.setSoTimeout(5_000);
            long id = IDS.incrementAndGet();
            s.getOutputStream().write(echo(id, servicePath, Wire.hessian2(text)));
            Wire.Frame f = Wire.read(s.getInputStream());
            return f.id() == id && f.status() == 20;
        } catch (IOException e) {
            return false;
        }
    }

    static Socket connect(Target target, int receiveBuffer) throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer); // before connecting, so the window is small from the start
        }
        s.connect(new InetSocketAddress(target.host(), target.port()), 5_000);
        s.setTcpNoDelay(true);
        return s;
    }

    // ---- frames ---------------------------------------------------------------------------------------------------

    /** A two-way hessian2 {@code $echo(arg)} to {@code servicePath}, {@code arg} as hessian2 bytes, no attachments. */
    static byte[] echo(long id, String servicePath, byte[] arg) {
        byte[] body = concat(Wire.hessian2("2.0.2", servicePath, "0.0.0", "$echo", ECHO_DESC), arg,
                new byte[] {'H', 'Z'});
        return concat(Wire.header(0xc2, 0, id, body.length), body);
    }

    /** hessian2 bytes of a {@code java.math.BigDecimal} whose value is {@code digits} nines, written by hand. */
    static byte[] bigDecimal(int digits) {
        return concat(new byte[] {'C'}, Wire.hessian2("java.math.BigDecimal"), new byte[] {(byte) 0x91},
                Wire.hessian2("value"), new byte[] {0x60}, Wire.hessian2("9".repeat(digits)));
    }

    /** A fastjson2 {@code twice(long)} whose argument is the number text of {@code digits} nines. */
    static byte[] longDigits(long id, int digits) {
        byte[] call = Wire.request(id, HostileService.class, "twice", 1L);
        return Wire.replaceItem(call, 5, JSONB.toBytes("9".repeat(digits)));
    }

    /** hessian2 bytes of an empty map typed {@code name}. */
    static byte[] typedMap(String name) {
        return concat(new byte[] {'M'}, Wire.hessian2(name), new byte[] {'Z'});
    }

    /** {@code count} class definitions one after another, then one instance of the first. */
    static byte[] classDefinitionRun(int count) {
        byte[] def = concat(new byte[] {'C'}, Wire.hessian2("java.math.BigDecimal"), new byte[] {(byte) 0x91},
                Wire.hessian2("value"));
        ByteArrayOutputStream out = new ByteArrayOutputStream(def.length * count + 16);
        for (int i = 0; i < count; i++) {
            out.writeBytes(def);
        }
        out.writeBytes(new byte[] {0x60});
        out.writeBytes(Wire.hessian2("1"));
        return out.toByteArray();
    }

    /** An untyped hessian2 list of {@code count} items, alternately an empty list and an empty map. */
    static byte[] emptyContainers(int count) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(count * 2 + 8);
        out.write('X'); // fixed-length untyped list, then its length as an int
        out.writeBytes(Wire.hessian2(count));
        for (int i = 0; i < count; i++) {
            if (i % 2 == 0) {
                out.write(0x78); // an empty untyped list
            } else {
                out.write('H'); // an empty untyped map
                out.write('Z');
            }
        }
        return out.toByteArray();
    }

    /** A two-way hessian2 heartbeat (an event whose data is null). */
    static byte[] heartbeat(long id) {
        return concat(Wire.header(0xe2, 0, id, 1), new byte[] {'N'});
    }

    // ---- the attacker ---------------------------------------------------------------------------------------------

    /** The hostile peer: prepares its bytes before measuring, then sends them and watches what comes back. */
    private static final class Attacker implements AutoCloseable {
        private final Target target;
        private final String path;
        private final List<Socket> sockets = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicLong sent = new AtomicLong();
        private final Map<Thread, Long> endedCpu = new java.util.concurrent.ConcurrentHashMap<>();
        private List<byte[]> frames = List.of();

        Attacker(Target target, String path) {
            this.target = target;
            this.path = path;
        }

        void prepare(Attack attack) {
            List<byte[]> f = new ArrayList<>();
            switch (attack) {
                case BIG_DECIMAL_DIGITS:
                    for (int i = 0; i < NUMBER_FRAMES; i++) {
                        f.add(echo(IDS.incrementAndGet(), path, bigDecimal(DIGITS)));
                    }
                    break;
                case LONG_DIGITS:
                    for (int i = 0; i < NUMBER_FRAMES; i++) {
                        f.add(longDigits(IDS.incrementAndGet(), DIGITS));
                    }
                    break;
                case DOTLESS_TYPE_NAMES:
                    String run = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
                    for (int i = 0; i < TYPE_NAMES; i++) {
                        String name = ("t" + run + "x" + i + "_").repeat(TYPE_NAME_CHARS);
                        f.add(echo(IDS.incrementAndGet(), path, typedMap(name.substring(0, TYPE_NAME_CHARS))));
                    }
                    break;
                case CLASS_DEFINITION_RUN:
                    for (int count : CLASS_DEFINITIONS) {
                        f.add(concat(echo(IDS.incrementAndGet(), path, classDefinitionRun(count)),
                                echo(IDS.incrementAndGet(), path, Wire.hessian2("next")))); // then a plain call
                    }
                    break;
                case EMPTY_CONTAINERS:
                    f.add(echo(IDS.incrementAndGet(), path, emptyContainers(EMPTY_CONTAINERS)));
                    break;
                case UNREAD_HEARTBEATS:
                    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
                    while (chunk.size() < 64 * 1024) {
                        chunk.writeBytes(heartbeat(IDS.incrementAndGet()));
                    }
                    f.add(chunk.toByteArray());
                    break;
                case TRICKLED_BODY:
                    byte[] header = Wire.header(0xc2, 0, IDS.incrementAndGet(), 2 * TRICKLE_BYTES);
                    f.add(concat(header, new byte[TRICKLE_BYTES]));
                    break;
                default:
                    throw new IllegalArgumentException(attack.name());
            }
            frames = f;
        }

        /** Sends the prepared bytes; a short text of what the server did. */
        String attack(Attack attack) throws Exception {
            switch (attack) {
                case BIG_DECIMAL_DIGITS:
                case LONG_DIGITS:
                case DOTLESS_TYPE_NAMES:
                case EMPTY_CONTAINERS:
                    return pipelined(20_000);
                case CLASS_DEFINITION_RUN:
                    return eachOnItsOwn(5_000);
                case UNREAD_HEARTBEATS:
                    return neverReads();
                case TRICKLED_BODY:
                    return trickles();
                default:
                    throw new IllegalArgumentException(attack.name());
            }
        }

        /** Writes every frame from a writer thread while this thread reads; answers by status, or how it ended. */
        private String pipelined(int readTimeoutMillis) throws Exception {
            Socket s = open(0);
            s.setSoTimeout(readTimeoutMillis);
            OutputStream out = s.getOutputStream();
            CompletableFuture<Void> written = new CompletableFuture<>();
            start(() -> {
                try {
                    for (byte[] frame : frames) {
                        out.write(frame);
                        sent.addAndGet(frame.length);
                    }
                    out.flush();
                    written.complete(null);
                } catch (IOException e) {
                    written.completeExceptionally(e);
                }
            });
            Map<Integer, Integer> statuses = new java.util.TreeMap<>();
            InputStream in = s.getInputStream();
            int answered = 0;
            String end = "answered";
            String error = "";
            try {
                while (answered < frames.size()) {
                    Wire.Frame f = Wire.read(in);
                    statuses.merge(f.status(), 1, Integer::sum);
                    if (f.status() != 20 && error.isEmpty()) {
                        String text = new String(f.body(), java.nio.charset.StandardCharsets.UTF_8)
                                .replaceAll("[^\\p{Alnum}.,:()]+", "_");
                        error = ";first-error:" + text.substring(0, Math.min(160, text.length()));
                    }
                    answered++;
                }
            } catch (SocketTimeoutException e) {
                end = "hung";
            } catch (IOException e) {
                end = "closed";
            }
            return end + ":" + answered + "/" + frames.size() + statuses.toString().replace(" ", "")
                    .replace(",", ";") + (written.isCompletedExceptionally() ? ";writeFailed" : "") + error;
        }

        /**
         * Each prepared byte run (two requests) on a connection of its own; for each, whether both were answered,
         * the connection closed, or it hung (neither within {@code readTimeoutMillis}).
         */
        private String eachOnItsOwn(int readTimeoutMillis) throws Exception {
            StringBuilder outcome = new StringBuilder();
            int hung = 0;
            for (byte[] run : frames) {
                Socket s = open(0);
                s.setSoTimeout(readTimeoutMillis);
                s.getOutputStream().write(run);
                sent.addAndGet(run.length);
                InputStream in = s.getInputStream();
                String end;
                try {
                    Wire.Frame first = Wire.read(in);
                    Wire.Frame next = Wire.read(in);
                    end = first.status() + "+" + next.status();
                } catch (SocketTimeoutException e) {
                    end = "hung";
                    hung++;
                } catch (IOException e) {
                    end = "closed";
                }
                outcome.append(outcome.length() == 0 ? "" : ";").append(end);
            }
            return (hung > 0 ? "hung:" + hung + ":" : "") + outcome;
        }

        /** Streams heartbeats without ever reading until the server stops taking them (or the limit). */
        private String neverReads() throws Exception {
            DeafPeer deaf = new DeafPeer(open(4 * 1024), frames.get(0), HEARTBEAT_BYTES, sent);
            start(deaf::write);
            // Done when nothing more is taken for 1 s, or everything was.
            DeafPeer.End end = deaf.awaitStill(Long.MAX_VALUE, () -> true, () -> true);
            return end == DeafPeer.End.STILL ? "stopped-reading" : "took-all";
        }

        /** Half a body at once, then one byte every 100 ms; how long until the server closed (or gave up at 3 s). */
        private String trickles() throws Exception {
            Socket s = open(0);
            OutputStream out = s.getOutputStream();
            byte[] first = frames.get(0);
            out.write(first);
            out.flush();
            sent.addAndGet(first.length);
            long t0 = System.nanoTime();
            long limit = target.frameTimeoutMillis() > 0 ? target.frameTimeoutMillis() + 3_000 : 3_000;
            s.setSoTimeout(100);
            InputStream in = s.getInputStream();
            while (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < limit) {
                try {
                    if (in.read() == -1) {
                        return "closed-after-ms:" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    }
                } catch (SocketTimeoutException quiet) {
                    try {
                        out.write(0);
                        out.flush();
                        sent.incrementAndGet();
                    } catch (IOException closed) {
                        return "closed-after-ms:" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    }
                } catch (IOException reset) {
                    return "closed-after-ms:" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                }
            }
            return "open-after-ms:" + limit;
        }

        private Socket open(int receiveBuffer) throws IOException {
            Socket s = connect(target, receiveBuffer);
            sockets.add(s);
            return s;
        }

        private void start(Runnable body) {
            Thread t = new Thread(() -> {
                try {
                    body.run();
                } finally {
                    endedCpu.put(Thread.currentThread(),
                            ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
                }
            }, "hostile-writer");
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }

        /** CPU of this thread plus that of the writer threads, live or ended. */
        long ownCpu() {
            java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long cpu = mx.getCurrentThreadCpuTime();
            for (Thread t : threads) {
                long c = mx.getThreadCpuTime(t.getId());
                cpu += c >= 0 ? c : endedCpu.getOrDefault(t, 0L);
            }
            return cpu;
        }

        @Override
        public void close() throws Exception {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // already closed by the server
                }
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
        }
    }

    /**
     * A well-behaved peer on its own connection: {@code $echo} every 10 ms, each answer awaited, for as long as the
     * attack runs. Counts calls and failures, keeps the slowest answer.
     */
    private static final class Probe {
        private final Target target;
        private final String path;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong calls = new AtomicLong();
        private final AtomicLong failures = new AtomicLong();
        private final AtomicLong maxNanos = new AtomicLong();
        private final AtomicLong cpu = new AtomicLong();
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        Probe(Target target, String path) {
            this.target = target;
            this.path = path;
        }

        void start() throws IOException {
            Socket s = connect(target, 0);
            s.setSoTimeout(30_000);
            Thread t = new Thread(() -> {
                try (s) {
                    OutputStream out = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    byte[] arg = Wire.hessian2("ping");
                    while (!stop.get()) {
                        long id = IDS.incrementAndGet();
                        long t0 = System.nanoTime();
                        out.write(echo(id, path, arg));
                        Wire.Frame f = Wire.read(in);
                        maxNanos.accumulateAndGet(System.nanoTime() - t0, Math::max);
                        if (f.id() == id && f.status() == 20) {
                            calls.incrementAndGet();
                        } else {
                            failures.incrementAndGet();
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                    }
                } catch (IOException e) {
                    failures.incrementAndGet();
                } finally {
                    cpu.set(ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
                    done.complete(null);
                }
            }, "hostile-probe");
            t.setDaemon(true);
            t.start();
        }

        void stop() throws Exception {
            stop.set(true);
            done.get(60, TimeUnit.SECONDS);
        }

        long cpu() {
            return cpu.get();
        }
    }
}
