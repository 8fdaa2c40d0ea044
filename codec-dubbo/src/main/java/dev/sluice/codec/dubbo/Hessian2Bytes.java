package dev.sluice.codec.dubbo;

import java.util.Arrays;

/**
 * hessian2's encodings of the scalar values, exactly as hessian-lite's {@code Hessian2Output} writes them, into a
 * byte array that grows ({@link Hessian2Writer} flushes it instead). Used for the class definitions of
 * {@link Hessian2Beans} and, through {@link Hessian2Writer}, for whole bodies. Not thread-safe: one owner at a time.
 */
class Hessian2Bytes {
    byte[] buf;
    int pos;
    char[] chars;

    Hessian2Bytes() {
        this(64);
    }

    Hessian2Bytes(int size) {
        buf = new byte[size];
    }

    /** Makes room for {@code n} more bytes. */
    void room(int n) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
    }

    final void ensure(int n) {
        if (pos + n > buf.length) {
            room(n);
        }
    }

    final int size() {
        return pos;
    }

    final byte[] toArray() {
        return Arrays.copyOf(buf, pos);
    }

    final void put(int b) {
        ensure(1);
        buf[pos++] = (byte) b;
    }

    final void bytes(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
    }

    final void integer(int v) {
        ensure(5);
        byte[] b = buf;
        int p = pos;
        if (-0x10 <= v && v <= 0x2f) {
            b[p++] = (byte) (v + 0x90);
        } else if (-0x800 <= v && v <= 0x7ff) {
            b[p++] = (byte) (0xc8 + (v >> 8));
            b[p++] = (byte) v;
        } else if (-0x40000 <= v && v <= 0x3ffff) {
            b[p++] = (byte) (0xd4 + (v >> 16));
            b[p++] = (byte) (v >> 8);
            b[p++] = (byte) v;
        } else {
            b[p++] = 'I';
            b[p++] = (byte) (v >> 24);
            b[p++] = (byte) (v >> 16);
            b[p++] = (byte) (v >> 8);
            b[p++] = (byte) v;
        }
        pos = p;
    }

    final void longValue(long v) {
        ensure(9);
        byte[] b = buf;
        int p = pos;
        if (-0x08 <= v && v <= 0x0f) {
            b[p++] = (byte) (v + 0xe0);
        } else if (-0x800 <= v && v <= 0x7ff) {
            b[p++] = (byte) (0xf8 + (v >> 8));
            b[p++] = (byte) v;
        } else if (-0x40000 <= v && v <= 0x3ffff) {
            b[p++] = (byte) (0x3c + (v >> 16));
            b[p++] = (byte) (v >> 8);
            b[p++] = (byte) v;
        } else if (-0x80000000L <= v && v <= 0x7fffffffL) {
            b[p++] = 0x59;
            b[p++] = (byte) (v >> 24);
            b[p++] = (byte) (v >> 16);
            b[p++] = (byte) (v >> 8);
            b[p++] = (byte) v;
        } else {
            b[p++] = 'L';
            for (int shift = 56; shift >= 0; shift -= 8) {
                b[p++] = (byte) (v >> shift);
            }
        }
        pos = p;
    }

    final void doubleValue(double v) {
        ensure(9);
        int i = (int) v;
        if (i == v) {
            if (i == 0) {
                buf[pos++] = 0x5b;
                return;
            } else if (i == 1) {
                buf[pos++] = 0x5c;
                return;
            } else if (-0x80 <= i && i < 0x80) {
                buf[pos++] = 0x5d;
                buf[pos++] = (byte) i;
                return;
            } else if (-0x8000 <= i && i < 0x8000) {
                buf[pos++] = 0x5e;
                buf[pos++] = (byte) (i >> 8);
                buf[pos++] = (byte) i;
                return;
            }
        }
        int mills = (int) (v * 1000);
        if (0.001 * mills == v) {
            buf[pos++] = 0x5f;
            buf[pos++] = (byte) (mills >> 24);
            buf[pos++] = (byte) (mills >> 16);
            buf[pos++] = (byte) (mills >> 8);
            buf[pos++] = (byte) mills;
            return;
        }
        long bits = Double.doubleToLongBits(v);
        buf[pos++] = 'D';
        for (int shift = 56; shift >= 0; shift -= 8) {
            buf[pos++] = (byte) (bits >> shift);
        }
    }

    /** {@code Hessian2Output.writeString}: chunks of 0x8000 chars that do not end inside a surrogate pair. */
    final void string(String s) {
        if (s == null) {
            put('N');
            return;
        }
        int length = s.length();
        int from = 0;
        while (length > 0x8000) {
            int sub = 0x8000;
            char tail = s.charAt(from + sub - 1);
            if (0xd800 <= tail && tail <= 0xdbff) {
                sub--;
            }
            ensure(3 + 3 * sub);
            buf[pos++] = 'R';
            buf[pos++] = (byte) (sub >> 8);
            buf[pos++] = (byte) sub;
            chars(s, from, sub);
            length -= sub;
            from += sub;
        }
        ensure(3 + 3 * length);
        if (length <= 0x1f) {
            buf[pos++] = (byte) length;
        } else if (length <= 0x3ff) {
            buf[pos++] = (byte) (0x30 + (length >> 8));
            buf[pos++] = (byte) length;
        } else {
            buf[pos++] = 'S';
            buf[pos++] = (byte) (length >> 8);
            buf[pos++] = (byte) length;
        }
        chars(s, from, length);
    }

    /** Per-char UTF-8 (surrogates one by one), into room already made. */
    private void chars(String s, int from, int n) {
        char[] c = chars;
        if (c == null || c.length < n) {
            c = new char[Math.max(n, 256)];
            chars = c; // kept: the chars are copied out in one go rather than read one by one with index checks
        }
        s.getChars(from, from + n, c, 0);
        byte[] b = buf;
        int p = pos;
        for (int i = 0; i < n; i++) {
            char ch = c[i];
            if (ch < 0x80) {
                b[p++] = (byte) ch;
            } else if (ch < 0x800) {
                b[p++] = (byte) (0xc0 + ((ch >> 6) & 0x1f));
                b[p++] = (byte) (0x80 + (ch & 0x3f));
            } else {
                b[p++] = (byte) (0xe0 + ((ch >> 12) & 0xf));
                b[p++] = (byte) (0x80 + ((ch >> 6) & 0x3f));
                b[p++] = (byte) (0x80 + (ch & 0x3f));
            }
        }
        pos = p;
    }
}
