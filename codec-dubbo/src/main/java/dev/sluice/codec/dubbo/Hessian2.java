package dev.sluice.codec.dubbo;

import io.netty.buffer.ByteBuf;

/**
 * The sliver of hessian2 the codec speaks: the null value (heartbeat bodies), and strings (event data such as
 * {@code "R"}, and the text of error responses). Dubbo peers may send events in hessian2 even when calls use
 * fastjson2 (docs/wire-format.md §1.3), and a hessian2 caller we cannot serve should still get a readable error.
 * Strings use hessian's per-char UTF-8 (surrogates encoded one by one) and its length in chars. Stateless; safe
 * from any thread.
 */
final class Hessian2 {
    static final byte NULL = 'N';
    private static final int COMPACT_MAX = 0x1f;
    private static final int MEDIUM_MAX = 0x3ff;
    private static final int CHUNK = 0x8000;
    private static final byte CHUNK_FINAL = 'S';
    private static final byte CHUNK_MORE = 'R';

    private Hessian2() {
    }

    static void writeString(ByteBuf out, String s) {
        if (s == null) {
            out.writeByte(NULL);
            return;
        }
        int len = s.length();
        if (len <= COMPACT_MAX) {
            out.writeByte(len);
            writeChars(out, s, 0, len);
        } else if (len <= MEDIUM_MAX) {
            out.writeByte(0x30 + (len >> 8));
            out.writeByte(len);
            writeChars(out, s, 0, len);
        } else {
            int off = 0;
            while (len - off > CHUNK) {
                out.writeByte(CHUNK_MORE);
                out.writeShort(CHUNK);
                writeChars(out, s, off, off + CHUNK);
                off += CHUNK;
            }
            out.writeByte(CHUNK_FINAL);
            out.writeShort(len - off);
            writeChars(out, s, off, len);
        }
    }

    private static void writeChars(ByteBuf out, String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out.writeByte(c);
            } else if (c < 0x800) {
                out.writeByte(0xc0 | (c >> 6));
                out.writeByte(0x80 | (c & 0x3f));
            } else {
                out.writeByte(0xe0 | (c >> 12));
                out.writeByte(0x80 | ((c >> 6) & 0x3f));
                out.writeByte(0x80 | (c & 0x3f));
            }
        }
    }

    /**
     * Reads one string (or null) from {@code b[off, end)}.
     *
     * @throws IllegalArgumentException if the bytes are not a complete hessian2 string
     */
    static String readString(byte[] b, int off, int end) {
        if (off >= end) {
            throw new IllegalArgumentException("empty hessian2 body");
        }
        int tag = b[off] & 0xff;
        if (tag == NULL) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        int[] pos = {off};
        while (true) {
            tag = b[pos[0]++] & 0xff;
            int len;
            boolean last = true;
            if (tag <= COMPACT_MAX) {
                len = tag;
            } else if (tag >= 0x30 && tag <= 0x33) {
                need(pos[0] + 1, end);
                len = ((tag - 0x30) << 8) | (b[pos[0]++] & 0xff);
            } else if (tag == CHUNK_FINAL || tag == CHUNK_MORE) {
                need(pos[0] + 2, end);
                len = ((b[pos[0]] & 0xff) << 8) | (b[pos[0] + 1] & 0xff);
                pos[0] += 2;
                last = tag == CHUNK_FINAL;
            } else {
                throw new IllegalArgumentException("not a hessian2 string: tag 0x" + Integer.toHexString(tag));
            }
            readChars(b, pos, end, len, sb);
            if (last) {
                return sb.toString();
            }
            need(pos[0] + 1, end);
        }
    }

    private static void readChars(byte[] b, int[] pos, int end, int len, StringBuilder sb) {
        int p = pos[0];
        for (int i = 0; i < len; i++) {
            need(p + 1, end);
            int c = b[p++] & 0xff;
            if (c < 0x80) {
                sb.append((char) c);
            } else if ((c & 0xe0) == 0xc0) {
                need(p + 1, end);
                sb.append((char) (((c & 0x1f) << 6) | (b[p++] & 0x3f)));
            } else if ((c & 0xf0) == 0xe0) {
                need(p + 2, end);
                sb.append((char) (((c & 0x0f) << 12) | ((b[p] & 0x3f) << 6) | (b[p + 1] & 0x3f)));
                p += 2;
            } else {
                throw new IllegalArgumentException("bad hessian2 UTF-8 byte 0x" + Integer.toHexString(c));
            }
        }
        pos[0] = p;
    }

    private static void need(int needEnd, int end) {
        if (needEnd > end) {
            throw new IllegalArgumentException("truncated hessian2 string");
        }
    }
}
