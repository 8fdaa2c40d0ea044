package dev.sluice.codec.dubbo;

import io.netty.buffer.ByteBuf;

/**
 * The few JSONB (fastjson2 binary) encodings the codec writes and reads by hand because they are on every frame:
 * ASCII strings, ints, null. Everything else goes through fastjson2. Byte values are those of fastjson2 2.0.56
 * (docs/wire-format.md §4.3). Stateless; safe from any thread.
 */
final class Jsonb {
    static final byte NULL = (byte) 0xaf;
    static final byte TRUE = (byte) 0xb1;
    static final byte FALSE = (byte) 0xb0;
    static final byte INT8 = (byte) 0xbd;
    static final byte OBJECT_START = (byte) 0xa6;
    static final byte OBJECT_END = (byte) 0xa5;
    static final byte STR_ASCII_FIX_MIN = 0x49;
    static final byte STR_ASCII_FIX_MAX = 0x78;
    static final int STR_ASCII_FIX_MAX_LEN = STR_ASCII_FIX_MAX - STR_ASCII_FIX_MIN;
    static final byte STR_ASCII = 0x79;
    static final byte STR_UTF8 = 0x7a;
    static final byte STR_UTF16 = 0x7b;
    static final byte STR_UTF16LE = 0x7c;
    static final byte STR_UTF16BE = 0x7d;

    private static final int INT32_NUM_MIN = -16;
    private static final int INT32_NUM_MAX = 47;
    private static final int INT32_BYTE_ZERO = 0x38;
    private static final int INT32_SHORT_ZERO = 0x44;
    private static final byte INT32 = 0x48;

    private Jsonb() {
    }

    /** True if every char is below 0x80, so the string is written as {@code 0x49+len} or {@code 0x79 len}. */
    static boolean isAscii(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** Size of the JSONB encoding of an ASCII string of {@code len} chars. */
    static int asciiStringSize(int len) {
        return len <= STR_ASCII_FIX_MAX_LEN ? 1 + len : 1 + int32Size(len) + len;
    }

    /** Writes an ASCII string (the caller checked {@link #isAscii}) as fastjson2 does. */
    static void writeAsciiString(ByteBuf out, String s) {
        int len = s.length();
        if (len <= STR_ASCII_FIX_MAX_LEN) {
            out.writeByte(STR_ASCII_FIX_MIN + len);
        } else {
            out.writeByte(STR_ASCII);
            writeInt32(out, len);
        }
        // Latin-1 write: one byte per char, no encoder, no intermediate array.
        out.writeCharSequence(s, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** Writes an ASCII string into {@code dst} at {@code off}; returns the new offset. */
    static int writeAsciiString(byte[] dst, int off, String s) {
        int len = s.length();
        if (len <= STR_ASCII_FIX_MAX_LEN) {
            dst[off++] = (byte) (STR_ASCII_FIX_MIN + len);
        } else {
            dst[off++] = STR_ASCII;
            off = writeInt32(dst, off, len);
        }
        for (int i = 0; i < len; i++) {
            dst[off++] = (byte) s.charAt(i);
        }
        return off;
    }

    static int int32Size(int v) {
        if (v >= INT32_NUM_MIN && v <= INT32_NUM_MAX) {
            return 1;
        } else if (v >= -2048 && v <= 2047) {
            return 2;
        } else if (v >= -262144 && v <= 262143) {
            return 3;
        }
        return 5;
    }

    static void writeInt32(ByteBuf out, int v) {
        if (v >= INT32_NUM_MIN && v <= INT32_NUM_MAX) {
            out.writeByte(v);
        } else if (v >= -2048 && v <= 2047) {
            out.writeByte(INT32_BYTE_ZERO + (v >> 8));
            out.writeByte(v);
        } else if (v >= -262144 && v <= 262143) {
            out.writeByte(INT32_SHORT_ZERO + (v >> 16));
            out.writeShort(v);
        } else {
            out.writeByte(INT32);
            out.writeInt(v);
        }
    }

    static int writeInt32(byte[] dst, int off, int v) {
        if (v >= INT32_NUM_MIN && v <= INT32_NUM_MAX) {
            dst[off++] = (byte) v;
        } else if (v >= -2048 && v <= 2047) {
            dst[off++] = (byte) (INT32_BYTE_ZERO + (v >> 8));
            dst[off++] = (byte) v;
        } else if (v >= -262144 && v <= 262143) {
            dst[off++] = (byte) (INT32_SHORT_ZERO + (v >> 16));
            dst[off++] = (byte) (v >> 8);
            dst[off++] = (byte) v;
        } else {
            dst[off++] = INT32;
            dst[off++] = (byte) (v >> 24);
            dst[off++] = (byte) (v >> 16);
            dst[off++] = (byte) (v >> 8);
            dst[off++] = (byte) v;
        }
        return off;
    }

    /**
     * Reads a JSONB int32 at {@code pos[0]} (not beyond {@code end}), advancing it.
     *
     * @throws IllegalArgumentException if the bytes are not an int32 or run past {@code end}
     */
    static int readInt32(byte[] b, int[] pos, int end) {
        int p = pos[0];
        if (p >= end) {
            throw new IllegalArgumentException("truncated JSONB int");
        }
        int type = b[p++];
        int v;
        if (type >= INT32_NUM_MIN && type <= INT32_NUM_MAX) {
            v = type;
        } else if (type >= 0x30 && type <= 0x3f) {
            check(p + 1, end);
            v = ((type - INT32_BYTE_ZERO) << 8) | (b[p++] & 0xff);
        } else if (type >= 0x40 && type <= 0x47) {
            check(p + 2, end);
            v = ((type - INT32_SHORT_ZERO) << 16) | ((b[p] & 0xff) << 8) | (b[p + 1] & 0xff);
            p += 2;
        } else if (type == INT32) {
            check(p + 4, end);
            v = ((b[p] & 0xff) << 24) | ((b[p + 1] & 0xff) << 16) | ((b[p + 2] & 0xff) << 8) | (b[p + 3] & 0xff);
            p += 4;
        } else {
            throw new IllegalArgumentException("expected a JSONB int, found type 0x"
                    + Integer.toHexString(type & 0xff));
        }
        pos[0] = p;
        return v;
    }

    private static void check(int needEnd, int end) {
        if (needEnd > end) {
            throw new IllegalArgumentException("truncated JSONB int");
        }
    }
}
