package dev.sluice.it.reliability;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static dev.sluice.codec.dubbo.TestBytes.frame;

import com.alibaba.fastjson2.JSONB;
import com.alibaba.fastjson2.JSONWriter;
import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.DubboRequest;
import io.netty.buffer.ByteBufUtil;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Dubbo frames by hand, for tests that play a misbehaving peer over a plain socket: encode with the real encoder,
 * then patch items or headers; read frames back with blocking reads (the socket's read timeout bounds them).
 */
final class Wire {
    static final int HEADER = 16;

    private Wire() {
    }


    /** A two-way fastjson2 request for {@code iface.method(args)} with a stock consumer's attachments. */
    static byte[] request(long id, Class<?> iface, String method, Object... args) {
        Method m = method(iface, method);
        Map<String, Object> attachments = new HashMap<>();
        attachments.put("path", iface.getName());
        attachments.put("interface", iface.getName());
        attachments.put("version", "0.0.0");
        attachments.put("timeout", "5000");
        return frame(DubboRequest.invocation(id, DubboMethod.of(iface, m, null), args, attachments));
    }

    /**
     * A two-way hessian2 request for {@code iface.method} whose argument values are {@code hessian2Args}, bytes written
     * by hand (so a class they name is never touched here), followed by empty attachments.
     */
    static byte[] hessian2Request(long id, Class<?> iface, String method, byte[] hessian2Args) {
        // hessian2 strings carry no references: the five leading values can be written on their own.
        DubboMethod m = DubboMethod.of(iface, method(iface, method), null);
        byte[] body = concat(hessian2(m.dubboVersion(), m.servicePath(), m.serviceVersion(), m.methodName(),
                m.parameterTypesDesc()), hessian2Args, new byte[] {'H', 'Z'});
        return concat(header(0xc2, 0, id, body.length), body);
    }

    /** A status-20 hessian2 response with flag 1 (a value, no attachments) and value bytes {@code hessian2Value}. */
    static byte[] hessian2ValueResponse(long id, byte[] hessian2Value) {
        byte[] body = concat(new byte[] {(byte) 0x91}, hessian2Value);
        return concat(header(0x02, 20, id, body.length), body);
    }

    /** An object of class {@code typeName} with one string field, as hessian2 bytes written by hand. */
    static byte[] hessian2Object(String typeName) {
        return concat(new byte[] {'C'}, hessian2(typeName), new byte[] {(byte) 0x91}, hessian2("command"),
                new byte[] {0x60}, hessian2("touch /tmp/pwned"));
    }

    /** A typed fixed-length hessian2 list of one null, of type {@code typeName}. */
    static byte[] hessian2List(String typeName) {
        return concat(new byte[] {'V'}, hessian2(typeName), new byte[] {(byte) 0x91, 'N'});
    }

    /** Values written by hessian-lite, the library Dubbo uses, as one stream. */
    static byte[] hessian2(Object... values) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        com.alibaba.com.caucho.hessian.io.Hessian2Output out = new com.alibaba.com.caucho.hessian.io.Hessian2Output(
                bytes);
        try {
            for (Object v : values) {
                out.writeObject(v);
            }
            out.flush();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Method method(Class<?> iface, String name) {
        for (Method m : iface.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(iface.getName() + " has no method " + name);
    }

    static byte[] header(int flags, int status, long id, int length) {
        return ByteBuffer.allocate(HEADER).putShort((short) 0xdabb).put((byte) flags).put((byte) status).putLong(id)
                .putInt(length).array();
    }

    /** {@code frame} with body item {@code index} (0-based) replaced by {@code jsonb}, its lengths fixed. */
    static byte[] replaceItem(byte[] frame, int index, byte[] jsonb) {
        int pos = HEADER;
        for (int i = 0; i < index; i++) {
            pos += 4 + ByteBuffer.wrap(frame).getInt(pos);
        }
        int oldLength = ByteBuffer.wrap(frame).getInt(pos);
        byte[] item = ByteBuffer.allocate(4 + jsonb.length).putInt(jsonb.length).put(jsonb).array();
        byte[] out = concat(Arrays.copyOfRange(frame, 0, pos), item,
                Arrays.copyOfRange(frame, pos + 4 + oldLength, frame.length));
        ByteBuffer.wrap(out).putInt(12, out.length - HEADER);
        return out;
    }

    /** A JSONB value typed {@code typeName} (written by name: the class is never touched) with one field. */
    static byte[] typedValue(String typeName) {
        try (JSONWriter w = JSONWriter.ofJSONB()) {
            w.writeTypeName(typeName);
            w.startObject();
            w.writeName("dataSourceName");
            w.writeString("ldap://127.0.0.1:1/Exploit");
            w.writeName("autoCommit");
            w.writeBool(true);
            w.endObject();
            return w.getBytes();
        }
    }

    /** A JSONB value of {@code value} with its class name, as Dubbo's writer does for a typed value. */
    static byte[] withClassName(Object value) {
        return JSONB.toBytes(value, JSONWriter.Feature.WriteClassName, JSONWriter.Feature.FieldBased,
                JSONWriter.Feature.NotWriteHashMapArrayListClassName);
    }

    /** A status-20 response with result flag 1 and the value item {@code jsonb}. */
    static byte[] valueResponse(long id, byte[] jsonb) {
        byte[] body = concat(new byte[] {0, 0, 0, 2, (byte) 0xbd, 1}, ByteBuffer.allocate(4).putInt(jsonb.length)
                .array(), jsonb);
        return concat(header(0x17, 20, id, body.length), body);
    }

    /** One frame read from {@code in}. */
    static Frame read(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        byte[] header = new byte[HEADER];
        d.readFully(header);
        ByteBuffer h = ByteBuffer.wrap(header);
        if (h.getShort(0) != (short) 0xdabb) {
            throw new IOException("not a Dubbo frame: " + ByteBufUtil.hexDump(header));
        }
        byte[] body = new byte[h.getInt(12)];
        d.readFully(body);
        return new Frame(header[2] & 0xff, header[3] & 0xff, h.getLong(4), body);
    }

    /** A decoded header and the raw body. */
    record Frame(int flags, int status, long id, byte[] body) {
        boolean isResponse() {
            return (flags & 0x80) == 0;
        }

        /**
         * The error text of an error response: the first JSONB item, or for a hessian2 frame (answered in the
         * request's serialization) the body's characters, hessian2 length prefix included.
         */
        String text() {
            if ((flags & 0x1f) == 2) {
                return new String(body, java.nio.charset.StandardCharsets.UTF_8);
            }
            return (String) item(0);
        }

        /** Body item {@code index} read as JSONB (no types: a test reads what our own server wrote). */
        Object item(int index) {
            int pos = 0;
            for (int i = 0; i < index; i++) {
                pos += 4 + ByteBuffer.wrap(body).getInt(pos);
            }
            int n = ByteBuffer.wrap(body).getInt(pos);
            return JSONB.parseObject(Arrays.copyOfRange(body, pos + 4, pos + 4 + n), Object.class);
        }
    }

}
