package dev.sluice.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The TCP sockets of this network namespace, read from {@code /proc/net/tcp} and {@code tcp6}: lets a scenario tell
 * "the same connection is still up" from "it was dropped and re-established", whatever RPC library owns the socket,
 * and see whether a process reads a socket (bytes waiting unread in its receive queue). Inside the harness's private
 * namespace only the scenario's own sockets are listed.
 *
 * <p>Stateless; any thread. Linux only.
 */
public final class TcpConnections {
    private static final String ESTABLISHED = "01";

    private TcpConnections() {
    }

    /** Local ports of the ESTABLISHED sockets whose remote port is {@code serverPort} (the clients' ends). */
    public static Set<Integer> clientPorts(int serverPort) {
        Set<Integer> ports = new TreeSet<>();
        for (String[] f : establishedRows()) {
            if (port(f[2]) == serverPort) {
                ports.add(port(f[1]));
            }
        }
        return ports;
    }

    /**
     * Bytes received and not yet read by the application ({@code rx_queue}) on each ESTABLISHED socket whose local
     * port is {@code localPort} (a server's ends), by the remote port.
     */
    public static Map<Integer, Long> unreadBytes(int localPort) {
        Map<Integer, Long> unread = new TreeMap<>();
        for (String[] f : establishedRows()) {
            if (port(f[1]) == localPort) {
                String queues = f[4]; // "tx_queue:rx_queue", hex
                unread.put(port(f[2]), Long.parseLong(queues.substring(queues.indexOf(':') + 1), 16));
            }
        }
        return unread;
    }

    private static List<String[]> establishedRows() {
        List<String[]> rows = new ArrayList<>();
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            Path path = Paths.get(table);
            if (!Files.isReadable(path)) {
                continue;
            }
            List<String> lines;
            try {
                lines = Files.readAllLines(path);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            // "  sl  local_address rem_address   st tx_queue:rx_queue ..." then rows like
            // "0: 0A000001:9C40 0A000001:1F90 01 00000000:00000000 ..."
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 4 && ESTABLISHED.equals(f[3])) {
                    rows.add(f);
                }
            }
        }
        return rows;
    }

    private static int port(String hexAddressAndPort) {
        return Integer.parseInt(hexAddressAndPort.substring(hexAddressAndPort.lastIndexOf(':') + 1), 16);
    }
}
