package dev.sluice.benchmark.codec;

import io.netty.buffer.ByteBuf;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The load-tolerant companion of {@link CodecBenchmark}: the same operations on the same paths, timed by the calling
 * thread's CPU time instead of the wall clock, so time a shared machine spends on other processes does not count.
 * Sluice's and Dubbo's paths run interleaved, round after round, and each figure is the median of the rounds. Prints
 * a Markdown table: CPU ns and allocated bytes per operation, and Sluice's encode+decode time per frame as a fraction
 * of Dubbo's (the medians' ratio, then in brackets the lowest and highest ratio of a single round). Garbage
 * collection runs on other threads and is not in the times (the bytes show what it will cost).
 * Then, for the calls that carry a POJO (createUser, getUser, listUser), a second table from the same run: the call
 * made generically ({@code $invoke} with maps, converted by the server, as {@link SluicePath} does it as a generic
 * path) against the same call typed, both on Sluice's codec, interleaved the same way.
 *
 * <pre>{@code
 * java -cp benchmark/target/sluice-benchmarks.jar dev.sluice.benchmark.codec.CodecCpuTime [rounds] [method,...]
 * }</pre>
 *
 * <p>Runs on the main thread only.
 */
public final class CodecCpuTime {
    private static final String[] OPS = {"encodeRequest", "decodeRequest", "encodeResponse", "decodeResponse"};
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static volatile Object sink;

    private CodecCpuTime() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        List<String> methods = args.length > 1 ? Arrays.asList(args[1].split(","))
                : List.of("existUser", "createUser", "getUser", "listUser");
        table(methods, rounds, "sluice", "dubbo");
        List<String> pojoCalls = methods.stream().filter(m -> !m.equals("existUser")).toList();
        if (!pojoCalls.isEmpty()) {
            System.out.println();
            table(pojoCalls, rounds, "generic", "typed");
        }
        System.exit(0); // the in-JVM Dubbo provider keeps non-daemon threads
    }

    /** One table: path {@code a} against path {@code b} ("sluice"/"dubbo", or Sluice's "generic"/"typed"). */
    private static void table(List<String> methods, int rounds, String a, String b) {
        System.out.println("| method | ser. | frame | " + a + " enc ns | " + a + " dec ns | " + b + " enc ns | " + b
                + " dec ns | " + a + "/" + b + " time (round range) | " + a + " enc B | " + a + " dec B | " + b
                + " enc B | " + b + " dec B |");
        System.out.println("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (String method : methods) {
            for (String ser : new String[] {"fastjson2", "hessian2"}) {
                row(method, ser, rounds, implementation(a), implementation(b));
            }
        }
    }

    private static String implementation(String column) {
        return switch (column) {
            case "generic" -> "sluice-generic";
            case "typed" -> "sluice";
            default -> column;
        };
    }

    private static void row(String method, String ser, int rounds, String a, String b) {
        CodecCall call = CodecCall.of(method);
        CodecPath[] paths = {CodecBenchmark.open(a, ser, call), CodecBenchmark.open(b, ser, call)};
        ByteBuf[][] frames = new ByteBuf[2][];
        for (int p = 0; p < 2; p++) {
            frames[p] = new ByteBuf[] {paths[p].encodeRequest(), paths[p].encodeResponse()};
        }
        try {
            for (int p = 0; p < 2; p++) {
                for (int op = 0; op < OPS.length; op++) {
                    measure(paths[p], frames[p], op, 20_000); // warm-up: compiled code from here on
                }
            }
            long[][][] cpu = new long[2][OPS.length][rounds];
            long[][] bytes = new long[2][OPS.length];
            for (int r = 0; r < rounds; r++) {
                for (int p = 0; p < 2; p++) {
                    for (int op = 0; op < OPS.length; op++) {
                        long[] m = measure(paths[p], frames[p], op, 2_000);
                        cpu[p][op][r] = m[0];
                        bytes[p][op] = m[1];
                    }
                }
            }
            double[][] ns = new double[2][OPS.length];
            for (int p = 0; p < 2; p++) {
                for (int op = 0; op < OPS.length; op++) {
                    long[] c = cpu[p][op].clone();
                    Arrays.sort(c);
                    ns[p][op] = c[rounds / 2] / 2_000.0;
                }
            }
            for (int frame = 0; frame < 2; frame++) {
                int enc = 2 * frame;
                int dec = enc + 1;
                // The spread: the same ratio round by round (each round runs both paths back to back).
                double lo = Double.MAX_VALUE;
                double hi = 0;
                for (int r = 0; r < rounds; r++) {
                    double ratio = (double) (cpu[0][enc][r] + cpu[0][dec][r]) / (cpu[1][enc][r] + cpu[1][dec][r]);
                    lo = Math.min(lo, ratio);
                    hi = Math.max(hi, ratio);
                }
                System.out.println(String.format(Locale.ROOT,
                        "| %s | %s | %s | %,.0f | %,.0f | %,.0f | %,.0f | %.2f (%.2f–%.2f) | %,d | %,d | %,d | %,d |",
                        method, ser, frame == 0 ? "request" : "response", ns[0][enc], ns[0][dec], ns[1][enc],
                        ns[1][dec], (ns[0][enc] + ns[0][dec]) / (ns[1][enc] + ns[1][dec]), lo, hi, bytes[0][enc],
                        bytes[0][dec], bytes[1][enc], bytes[1][dec]));
            }
        } finally {
            for (int p = 0; p < 2; p++) {
                frames[p][0].release();
                frames[p][1].release();
                paths[p].close();
            }
        }
    }

    /** {@code n} runs of one operation: {thread CPU ns in all, allocated bytes per operation}. */
    private static long[] measure(CodecPath path, ByteBuf[] frames, int op, int n) {
        long cpu0 = MX.getCurrentThreadCpuTime();
        long bytes0 = MX.getThreadAllocatedBytes(Thread.currentThread().getId());
        for (int i = 0; i < n; i++) {
            switch (op) {
                case 0 -> path.encodeRequest().release();
                case 1 -> sink = path.decodeRequest(frames[0].readerIndex(0));
                case 2 -> path.encodeResponse().release();
                default -> sink = path.decodeResponse(frames[1].readerIndex(0));
            }
        }
        long bytes = MX.getThreadAllocatedBytes(Thread.currentThread().getId()) - bytes0;
        return new long[] {MX.getCurrentThreadCpuTime() - cpu0, bytes / n};
    }
}
