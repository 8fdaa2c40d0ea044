package dev.sluice.benchmark.profile;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Splits the CPU time of one benchmark JVM's flight recording (taken with {@code benchmark/layers.jfc}, see
 * {@code --jfr} of the Runner) into the layers of a Dubbo call, in µs per call:
 *
 * <ul>
 *   <li>process CPU from {@code jdk.CPULoad} (user and system, a fraction of the machine, times its cores);</li>
 *   <li>kernel = the process's system time;</li>
 *   <li>the user time of the application's Java threads ({@code jdk.ThreadCPULoad}) split by
 *       {@code jdk.ExecutionSample}s, each sample classified by its stack ({@link #layer});</li>
 *   <li>the rest of the user time (GC workers, JIT compilers, other VM threads) as "JVM".</li>
 * </ul>
 *
 * A sample belongs to the layer of the frame nearest its leaf that is not generic code (the JDK, Netty's buffers and
 * internals): a {@code HashMap.get} called by Dubbo's codec counts as codec, a {@code ByteBuf.writeBytes} called by
 * fastjson2 as serialization, a {@code LockSupport.unpark} called by {@code DefaultFuture} as exchange.
 *
 * <p>Usage: {@code java -cp sluice-benchmarks.jar dev.sluice.benchmark.profile.JfrLayers FILE.jfr CALLS_PER_SECOND}
 * (the benchmark's throughput over the recorded window, e.g. ops/ms x 1000). Single-threaded command-line tool.
 */
public final class JfrLayers {

    /** Layer names, in report order. */
    static final List<String> LAYERS = List.of("app+bench", "proxy/filters/cluster", "exchange/futures/dispatch",
            "codec", "serialization", "transport", "jdk-only", "other");

    /**
     * Code that is not a layer of its own: a sample in it belongs to the nearest caller that is. Besides the JDK and
     * Netty's buffers, the data objects every layer reads and writes (an invocation's attachments, URL parameters).
     */
    private static final String[] GENERIC = {"java.", "javax.", "jdk.", "sun.", "com.sun.", "io.netty.buffer.",
        "io.netty.util.internal.", "io.netty.util.Recycler", "io.netty.util.AbstractReferenceCounted",
        "io.netty.util.ReferenceCountUtil", "io.netty.util.ReferenceCounted", "org.apache.dubbo.rpc.RpcInvocation",
        "org.apache.dubbo.rpc.AppResponse", "org.apache.dubbo.common.URL", "org.apache.dubbo.common.url.",
        "org.apache.dubbo.remoting.exchange.Request", "org.apache.dubbo.remoting.exchange.Response"};

    /** Prefix to layer, most specific first. */
    private static final String[][] RULES = {
        {"org.apache.dubbo.benchmark.", "app+bench"},
        {"dev.sluice.benchmark.", "app+bench"},
        {"org.openjdk.jmh.", "app+bench"},
        {"com.alibaba.fastjson2.", "serialization"},
        {"com.alibaba.com.caucho.hessian.", "serialization"},
        {"org.apache.dubbo.common.serialize.", "serialization"},
        {"org.apache.dubbo.remoting.exchange.codec.", "codec"},
        {"org.apache.dubbo.remoting.transport.codec.", "codec"},
        {"org.apache.dubbo.remoting.transport.CodecSupport", "codec"},
        {"org.apache.dubbo.remoting.transport.netty4.NettyCodecAdapter", "codec"},
        {"org.apache.dubbo.remoting.transport.netty4.NettyBackedChannelBuffer", "codec"},
        {"org.apache.dubbo.remoting.buffer.", "codec"},
        {"org.apache.dubbo.remoting.telnet.", "codec"},
        {"org.apache.dubbo.rpc.protocol.dubbo.DubboCodec", "codec"},
        {"org.apache.dubbo.rpc.protocol.dubbo.DubboCountCodec", "codec"},
        {"org.apache.dubbo.rpc.protocol.dubbo.DecodeableRpc", "codec"},
        {"org.apache.dubbo.rpc.protocol.dubbo.CallbackServiceCodec", "codec"},
        {"dev.sluice.dubbo.ByteBufChannelBuffer", "codec"},
        {"dev.sluice.dubbo.DubboFrameCodec", "codec"},
        {"dev.sluice.dubbo.DubboFrameDecoder", "codec"},
        {"dev.sluice.transport.codec.", "codec"},
        {"org.apache.dubbo.remoting.exchange.", "exchange/futures/dispatch"},
        {"org.apache.dubbo.remoting.transport.dispatcher.", "exchange/futures/dispatch"},
        {"org.apache.dubbo.remoting.transport.DecodeHandler", "exchange/futures/dispatch"},
        {"org.apache.dubbo.remoting.transport.MultiMessageHandler", "exchange/futures/dispatch"},
        {"org.apache.dubbo.common.threadpool.", "exchange/futures/dispatch"},
        {"org.apache.dubbo.rpc.AsyncRpcResult", "exchange/futures/dispatch"},
        {"org.apache.dubbo.rpc.protocol.dubbo.DubboProtocol$", "exchange/futures/dispatch"},
        {"io.netty.", "transport"},
        {"dev.sluice.transport.", "transport"},
        {"dev.sluice.dubbo.", "transport"},
        {"org.apache.dubbo.remoting.", "transport"},
        {"org.apache.dubbo.", "proxy/filters/cluster"},
    };

    private JfrLayers() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: JfrLayers FILE.jfr CALLS_PER_SECOND");
            System.exit(2);
        }
        System.out.print(analyse(Path.of(args[0]), Double.parseDouble(args[1])).format());
    }

    /** The layer of one sample's stack (frames leaf first). */
    static String layer(List<String> classNames) {
        int i = decidingFrame(classNames);
        if (i < 0) {
            return classNames.isEmpty() ? "other" : "jdk-only";
        }
        String c = classNames.get(i);
        for (String[] rule : RULES) {
            if (c.startsWith(rule[0])) {
                return rule[1];
            }
        }
        return "other";
    }

    /** The index of the frame nearest the leaf that is not generic code, or -1. */
    private static int decidingFrame(List<String> classNames) {
        for (int i = 0; i < classNames.size(); i++) {
            if (!generic(classNames.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean generic(String className) {
        for (String g : GENERIC) {
            if (className.startsWith(g)) {
                return true;
            }
        }
        return false;
    }

    /** What one recording says. */
    static final class Result {
        double seconds;
        int cores;
        double callsPerSecond;
        double processUser;
        double processSystem;
        double javaThreadsUser;
        final Map<String, Long> samples = new LinkedHashMap<>();
        final Map<String, double[]> threadGroups = new TreeMap<>();
        final Map<String, Map<String, Long>> topFrames = new LinkedHashMap<>();
        final Map<String, Map<String, Long>> decidingFrames = new LinkedHashMap<>();

        /** CPU seconds per second of wall time into µs per call. */
        double perCall(double cores) {
            return cores * 1e6 / callsPerSecond;
        }

        String format() {
            StringBuilder b = new StringBuilder();
            long total = samples.values().stream().mapToLong(Long::longValue).sum();
            b.append(String.format(Locale.ROOT, "window %.1f s, %d cores, %.0f calls/s; process CPU %.2f cores"
                    + " (user %.2f, system %.2f) = %.1f µs/call%n", seconds, cores, callsPerSecond,
                    processUser + processSystem, processUser, processSystem, perCall(processUser + processSystem)));
            b.append(String.format(Locale.ROOT, "%-28s %8s %7s %9s%n", "layer", "samples", "share", "µs/call"));
            for (String l : LAYERS) {
                long n = samples.getOrDefault(l, 0L);
                double share = total == 0 ? 0 : (double) n / total;
                b.append(String.format(Locale.ROOT, "%-28s %8d %6.1f%% %9.2f%n", l, n, 100 * share,
                        perCall(javaThreadsUser * share)));
            }
            double jvm = Math.max(0, processUser - javaThreadsUser);
            b.append(String.format(Locale.ROOT, "%-28s %8s %7s %9.2f%n", "JVM (GC, JIT, VM threads)", "", "",
                    perCall(jvm)));
            b.append(String.format(Locale.ROOT, "%-28s %8s %7s %9.2f%n", "kernel (system time)", "", "",
                    perCall(processSystem)));
            b.append(String.format(Locale.ROOT, "%-28s %8d %7s %9.2f%n", "total", total, "",
                    perCall(processUser + processSystem)));
            b.append(String.format(Locale.ROOT, "%nthreads (CPU cores user/system, µs/call)%n"));
            for (Map.Entry<String, double[]> e : threadGroups.entrySet()) {
                double[] v = e.getValue();
                if (v[0] + v[1] > 0.005) {
                    b.append(String.format(Locale.ROOT, "  %-40s %5.2f %5.2f %8.2f%n", e.getKey(), v[0], v[1],
                            perCall(v[0] + v[1])));
                }
            }
            top(b, "leaf frames", topFrames);
            top(b, "deciding frames (the frame that gave the layer)", decidingFrames);
            return b.toString();
        }

        private static void top(StringBuilder b, String what, Map<String, Map<String, Long>> frames) {
            b.append(String.format(Locale.ROOT, "%ntop %s per layer%n", what));
            for (Map.Entry<String, Map<String, Long>> e : frames.entrySet()) {
                b.append("  ").append(e.getKey()).append('\n');
                e.getValue().entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).limit(12)
                        .forEach(f -> b.append(String.format(Locale.ROOT, "    %6d %s%n", f.getValue(), f.getKey())));
            }
        }
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    static Result analyse(Path file, double callsPerSecond) throws IOException {
        Result r = new Result();
        r.callsPerSecond = callsPerSecond;
        r.cores = Runtime.getRuntime().availableProcessors();
        List<double[]> load = new ArrayList<>();
        // per thread: sum of (user, system) fractions and the number of periods seen
        Map<String, double[]> threads = new LinkedHashMap<>();
        Instant first = null;
        Instant last = null;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            String type = e.getEventType().getName();
            switch (type) {
                case "jdk.CPUInformation" -> r.cores = e.getInt("hwThreads");
                case "jdk.CPULoad" -> load.add(new double[] {e.getFloat("jvmUser"), e.getFloat("jvmSystem")});
                case "jdk.ThreadCPULoad" -> {
                    RecordedThread t = e.getThread();
                    String name = t == null ? "?" : t.getJavaName() != null ? t.getJavaName() : t.getOSName();
                    double[] v = threads.computeIfAbsent(name + "#" + (t == null ? 0 : t.getJavaThreadId()),
                            k -> new double[3]);
                    v[0] += e.getFloat("user");
                    v[1] += e.getFloat("system");
                    v[2]++;
                }
                case "jdk.ExecutionSample" -> {
                    RecordedStackTrace st = e.getStackTrace();
                    if (st == null) {
                        continue;
                    }
                    List<String> classes = new ArrayList<>(st.getFrames().size());
                    for (RecordedFrame f : st.getFrames()) {
                        classes.add(f.getMethod().getType().getName());
                    }
                    String l = layer(classes);
                    r.samples.merge(l, 1L, Long::sum);
                    if (!classes.isEmpty()) {
                        r.topFrames.computeIfAbsent(l, k -> new LinkedHashMap<>())
                                .merge(name(st.getFrames().get(0)), 1L, Long::sum);
                        int d = decidingFrame(classes);
                        r.decidingFrames.computeIfAbsent(l, k -> new LinkedHashMap<>())
                                .merge(d < 0 ? "-" : name(st.getFrames().get(d)), 1L, Long::sum);
                    }
                    Instant t = e.getStartTime();
                    first = first == null || t.isBefore(first) ? t : first;
                    last = last == null || t.isAfter(last) ? t : last;
                }
                default -> {
                    // not used
                }
            }
        }
        r.seconds = first == null ? 0 : (last.toEpochMilli() - first.toEpochMilli()) / 1000.0;
        for (double[] l : load) {
            r.processUser += l[0] * r.cores / load.size();
            r.processSystem += l[1] * r.cores / load.size();
        }
        // ThreadCPULoad is a fraction of the whole machine, once per period per thread: average over the periods
        // the process had (the longest-lived thread's count) and scale to cores.
        double periods = threads.values().stream().mapToDouble(v -> v[2]).max().orElse(1);
        for (Map.Entry<String, double[]> t : threads.entrySet()) {
            String group = t.getKey().replaceAll("#\\d+$", "").replaceAll("\\d+", "N");
            double user = t.getValue()[0] * r.cores / periods;
            double system = t.getValue()[1] * r.cores / periods;
            double[] g = r.threadGroups.computeIfAbsent(group, k -> new double[2]);
            g[0] += user;
            g[1] += system;
            if (!group.contains("CompilerThread")) {
                r.javaThreadsUser += user;
            }
        }
        return r;
    }
}
