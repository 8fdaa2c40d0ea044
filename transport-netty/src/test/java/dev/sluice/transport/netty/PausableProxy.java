package dev.sluice.transport.netty;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a local port that can stop answering without closing: while {@link #pause() paused} it keeps reading
 * what the client sends and forwards it to the server, but holds back everything the server answers; the client
 * sees a peer that takes its bytes and says nothing, as with a frozen process or a black-holing path.
 * {@link #resume()} releases what was held, in order. It also counts the Dubbo heartbeat requests the client sent
 * (frames with the request, two-way and event bits), so a test can tell that a liveness probe went out.
 *
 * <p>Threads: one acceptor thread and two copier threads per connection, all daemons; the public methods are
 * thread-safe.
 */
public final class PausableProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger heartbeats = new AtomicInteger();
    private final Object gate = new Object();
    private boolean paused; // guarded by gate
    /** Most bytes a second forwarded from client to server; 0 for no limit. */
    private final long upBytesPerSecond;

    public PausableProxy(InetSocketAddress target) throws IOException {
        this(target, 0, 0);
    }

    /**
     * A proxy whose client-to-server direction is a slow path: it forwards at most {@code upBytesPerSecond}, and its
     * sockets from the client take at most {@code receiveBuffer} bytes (0: the system's default), so a large upload
     * waits in the client rather than in this proxy's buffers.
     */
    public PausableProxy(InetSocketAddress target, int receiveBuffer, long upBytesPerSecond) throws IOException {
        this.target = target;
        this.upBytesPerSecond = upBytesPerSecond;
        // The wildcard: Dubbo may dial a non-loopback local address for 127.0.0.1.
        this.listener = new ServerSocket();
        if (receiveBuffer > 0) {
            listener.setReceiveBufferSize(receiveBuffer); // before bind: it sets the window the client sees
        }
        listener.bind(new InetSocketAddress(0));
        Thread acceptor = new Thread(this::acceptLoop, "pausable-proxy-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Holds back every byte the server sends from now on, until {@link #resume()}. */
    public void pause() {
        synchronized (gate) {
            paused = true;
        }
    }

    /** Forwards what was held back, and everything after it. */
    public void resume() {
        synchronized (gate) {
            paused = false;
            gate.notifyAll();
        }
    }

    /** Dubbo heartbeat requests the client has sent through this proxy so far. */
    public int heartbeatsFromClient() {
        return heartbeats.get();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(target, 5_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                start("proxy-up", () -> copyUp(client, server));
                start("proxy-down", () -> copyDown(server, client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    /** Client to server: always flowing; counts heartbeat requests by reading Dubbo's 16-byte headers. */
    private void copyUp(Socket from, Socket to) {
        byte[] header = new byte[16];
        int headerFill = 0;
        long skip = 0;
        byte[] buf = new byte[upBytesPerSecond > 0 ? 1024 : 8192];
        long start = System.nanoTime();
        long forwarded = 0;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (upBytesPerSecond > 0) {
                    // Pace to the rate: forward these bytes no sooner than the rate allows.
                    forwarded += n;
                    long due = start + forwarded * 1_000_000_000L / upBytesPerSecond;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    }
                }
                int i = 0;
                while (i < n) {
                    if (skip > 0) {
                        int k = (int) Math.min(skip, n - i);
                        skip -= k;
                        i += k;
                        continue;
                    }
                    header[headerFill++] = buf[i++];
                    if (headerFill == 16) {
                        headerFill = 0;
                        if ((header[2] & 0xE0) == 0xE0) {
                            heartbeats.incrementAndGet();
                        }
                        skip = ((header[12] & 0xFFL) << 24) | ((header[13] & 0xFF) << 16)
                                | ((header[14] & 0xFF) << 8) | (header[15] & 0xFF);
                    }
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // a side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Server to client: held back while paused. */
    private void copyDown(Socket from, Socket to) {
        byte[] buf = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                synchronized (gate) {
                    while (paused) {
                        gate.wait();
                    }
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // a side closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        resume();
        listener.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
