package dev.sluice.codec.dubbo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.HexFormat;

/** Byte-array helpers for building frames by hand: codec tests, fuzz targets and the integration suite share them. */
public final class TestBytes {
    private TestBytes() {
    }

    /** The bytes written in hex, whitespace ignored ({@code "da bb c2"}). */
    public static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replaceAll("\\s+", ""));
    }

    /** A frame as {@link DubboEncoder} writes {@code message}, with no payload limit. */
    public static byte[] frame(Object message) {
        ByteBuf out = Unpooled.buffer(256);
        try {
            new DubboEncoder(0).encode(message, out);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    /** The parts one after another. */
    public static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int off = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, off, p.length);
            off += p.length;
        }
        return out;
    }
}
