package dev.sluice.it.harness;

import java.io.File;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Builds the command prefix that starts a process inside a fresh, private Linux network namespace holding
 * {@code lo} plus one test interface with {@link #TEST_ADDRESS}, and tells whether this machine can do that.
 *
 * <p>Why: a real Dubbo consumer on a machine whose only interface is {@code lo} re-resolves the local address on
 * every call (seconds per call) and rewrites a 127.0.0.1 target to the first non-loopback IPv4
 * (docs/wire-format.md §10.1). Inside the namespace it finds {@link #TEST_ADDRESS} instead. Nothing can
 * leave the namespace: it has no route to anything but its own addresses.
 *
 * <p>The prefix is {@code unshare -n} (works as root) or {@code unshare -rn} (an unprivileged user namespace
 * mapped to root), followed by {@code sh -c SETUP_SCRIPT}, which brings {@code lo} up, creates the veth pair
 * {@code sl0}/{@code sl1} (a {@code dummy} interface {@code sl0} where veth is missing), puts
 * {@value #TEST_ADDRESS}/32 on {@code sl0}, brings everything up and {@code exec}s the remaining arguments. Neither
 * {@code unshare} nor {@code sh} forks, so the started {@link Process} is the target program itself.
 *
 * <p>Runs on the calling (test) thread; {@link #probe()} is computed once per JVM and is thread-safe.
 */
public final class NetnsLauncher {
    /** The address of the test interface inside the namespace. It exists nowhere else. */
    public static final String TEST_ADDRESS = "10.253.0.1";

    // $0 is the label, "$@" the program to exec. PATH gets the sbin directories because `ip` lives there and a
    // non-root PATH often lacks them.
    private static final String SETUP_SCRIPT = String.join("\n",
            "set -e",
            "PATH=\"$PATH:/usr/sbin:/sbin:/usr/bin:/bin\"",
            "ip link set lo up",
            "if ip link add sl0 type veth peer name sl1 2>/dev/null; then ip link set sl1 up;"
                    + " else ip link add sl0 type dummy; fi",
            "ip addr add " + TEST_ADDRESS + "/32 dev sl0",
            "ip link set sl0 up",
            "exec \"$@\"");

    private static final String[][] CANDIDATES = {{"-n"}, {"-rn"}};
    private static volatile Probe probe;

    private NetnsLauncher() {}

    /** Whether, and how, this machine can start a process in a private network namespace. */
    public static final class Probe {
        private final List<String> prefix;
        private final String diagnosis;
        private final boolean interrupted;

        Probe(List<String> prefix, String diagnosis) {
            this(prefix, diagnosis, false);
        }

        Probe(List<String> prefix, String diagnosis, boolean interrupted) {
            this.prefix = prefix;
            this.diagnosis = diagnosis;
            this.interrupted = interrupted;
        }

        public boolean available() {
            return prefix != null;
        }

        /** What was tried and what happened; useful in a failure message. */
        public String diagnosis() {
            return diagnosis;
        }

        /**
         * The argv prefix: {@code unshare <flags> sh -c <script> sluice-netns}; append the program and its
         * arguments. Throws {@link IllegalStateException} naming what is missing when unavailable.
         */
        public List<String> prefix() {
            if (prefix == null) {
                throw new IllegalStateException("Cannot create a private network namespace on this machine. "
                        + "Needs util-linux `unshare` and iproute2 `ip`, and either root (unshare -n) or "
                        + "unprivileged user namespaces (unshare -rn; sysctl user.max_user_namespaces > 0, "
                        + "kernel.unprivileged_userns_clone=1, no AppArmor/SELinux restriction). Tried:\n"
                        + diagnosis);
            }
            return prefix;
        }
    }

    /** Tries {@code unshare -n}, then {@code unshare -rn}, running the real setup script with {@code true}. */
    public static Probe probe() {
        Probe p = probe;
        if (p == null) {
            synchronized (NetnsLauncher.class) {
                p = probe;
                if (p == null) {
                    p = doProbe();
                    if (!p.interrupted) {
                        probe = p; // an interrupted probe proves nothing; try again next time
                    }
                }
            }
        }
        return p;
    }

    private static Probe doProbe() {
        StringBuilder diagnosis = new StringBuilder();
        Optional<String> unshare = findExecutable("unshare");
        if (unshare.isEmpty()) {
            return new Probe(null,
                    "  `unshare` (util-linux) not found on PATH or in /usr/bin, /bin, /usr/sbin, /sbin\n");
        }
        for (String[] flags : CANDIDATES) {
            List<String> prefix = new ArrayList<>();
            prefix.add(unshare.get());
            Collections.addAll(prefix, flags);
            Collections.addAll(prefix, "sh", "-c", SETUP_SCRIPT, "sluice-netns");
            List<String> command = new ArrayList<>(prefix);
            command.add("true");
            String outcome = runQuietly(command);
            if (Thread.currentThread().isInterrupted()) {
                return new Probe(null, diagnosis + "  interrupted while probing\n", true);
            }
            diagnosis.append("  ").append(unshare.get()).append(' ').append(String.join(" ", flags)).append(": ")
                    .append(outcome == null ? "ok" : outcome).append('\n');
            if (outcome == null) {
                return new Probe(List.copyOf(prefix), diagnosis.toString());
            }
        }
        return new Probe(null, diagnosis.toString());
    }

    /** Returns null on success, else a one-line description of the failure. */
    private static String runQuietly(List<String> command) {
        Path out = null;
        try {
            out = Files.createTempFile("sluice-netns-probe", ".log");
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "timed out after 20 s";
            }
            if (process.exitValue() == 0) {
                return null;
            }
            String text = Files.readString(out, StandardCharsets.UTF_8).strip().replace('\n', ' ');
            return "exit " + process.exitValue() + (text.isEmpty() ? "" : ": " + text);
        } catch (IOException e) {
            return e.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException ignored) {
                    // a leftover temp file is harmless
                }
            }
        }
    }

    static Optional<String> findExecutable(String name) {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            Collections.addAll(dirs, path.split(File.pathSeparator));
        }
        Collections.addAll(dirs, "/usr/bin", "/bin", "/usr/sbin", "/sbin");
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
            File candidate = new File(dir, name);
            if (candidate.isFile() && candidate.canExecute()) {
                return Optional.of(candidate.getAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /**
     * The IPv4 address a Dubbo peer would pick on this machine outside any namespace: the first address of an
     * interface that is up, not loopback and not virtual, skipping loopback, wildcard and link-local addresses.
     * Empty when the machine only has {@code lo} — the case Dubbo handles badly.
     */
    public static Optional<String> hostNonLoopbackAddress() {
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp() || nif.isLoopback() || nif.isVirtual()) {
                    continue;
                }
                for (InetAddress address : Collections.list(nif.getInetAddresses())) {
                    if (address instanceof Inet4Address && !address.isLoopbackAddress()
                            && !address.isAnyLocalAddress() && !address.isLinkLocalAddress()) {
                        return Optional.of(address.getHostAddress());
                    }
                }
            }
        } catch (SocketException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
