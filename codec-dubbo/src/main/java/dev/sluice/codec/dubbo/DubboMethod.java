package dev.sluice.codec.dubbo;

import com.alibaba.fastjson2.JSONB;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Internal;
import java.lang.reflect.Method;
import java.util.Objects;

/**
 * What a call targets: the five leading string fields of a request body (docs/wire-format.md §2.1) — protocol version,
 * service path, service version, method name and parameter descriptor. Its fields are immutable; it caches its
 * encoded forms and one {@link #resolution}; thread-safe.
 *
 * <p>Create one per method and reuse it: the encoder caches the pre-encoded leading items in this object, so a
 * reused instance costs one buffer copy per call instead of five string encodings. Decoded requests carry the
 * instance the decoder built for them.
 */
@Internal
public final class DubboMethod {
    private final String dubboVersion;
    private final String servicePath;
    private final String serviceVersion;
    private final String methodName;
    private final String parameterTypesDesc;
    /**
     * The five fastjson2 items, each with its 4-byte length; computed on first encode; racing threads compute equal
     * arrays.
     */
    private volatile byte[] fastjson2Prefix;
    /** The same five fields as hessian2 strings; computed on first encode, like {@link #fastjson2Prefix}. */
    private volatile byte[] hessian2Prefix;
    /** What a server resolved this target to; see {@link #resolution()}. */
    private volatile Object resolution;

    private DubboMethod(String dubboVersion, String servicePath, String serviceVersion, String methodName,
            String parameterTypesDesc) {
        this.dubboVersion = Objects.requireNonNull(dubboVersion, "dubboVersion");
        this.servicePath = Objects.requireNonNull(servicePath, "servicePath");
        this.serviceVersion = serviceVersion == null ? DubboConstants.DEFAULT_SERVICE_VERSION : serviceVersion;
        this.methodName = Objects.requireNonNull(methodName, "methodName");
        this.parameterTypesDesc = parameterTypesDesc == null ? "" : parameterTypesDesc;
    }

    /**
     * A target with protocol version {@code "2.0.2"}.
     *
     * @param servicePath the service interface FQCN, as Dubbo consumers send it
     * @param serviceVersion the service version; {@code null} becomes {@code "0.0.0"} (what a Dubbo consumer sends
     *     for an unversioned service)
     * @param parameterTypesDesc the JVM descriptor of the parameter list, see {@link DubboDescriptors}
     */
    public static DubboMethod of(String servicePath, String serviceVersion, String methodName,
            String parameterTypesDesc) {
        return new DubboMethod(DubboConstants.DUBBO_PROTOCOL_VERSION, servicePath, serviceVersion, methodName,
                parameterTypesDesc);
    }

    /** A target for a method of a service interface; the path is the interface's FQCN. */
    public static DubboMethod of(Class<?> serviceInterface, Method method, String serviceVersion) {
        return of(serviceInterface.getName(), serviceVersion, method.getName(), DubboDescriptors.desc(method));
    }

    /** All five fields as given (for decoded requests and tests of other protocol versions). */
    public static DubboMethod of(String dubboVersion, String servicePath, String serviceVersion, String methodName,
            String parameterTypesDesc) {
        return new DubboMethod(dubboVersion, servicePath, serviceVersion, methodName, parameterTypesDesc);
    }

    /** The protocol version of body field 0 ({@code "2.0.2"}), not the Dubbo release. */
    public String dubboVersion() {
        return dubboVersion;
    }

    public String servicePath() {
        return servicePath;
    }

    /** {@code "0.0.0"} when the service has no version. */
    public String serviceVersion() {
        return serviceVersion;
    }

    public String methodName() {
        return methodName;
    }

    /** The JVM descriptor of the parameter list; {@code ""} for no parameters. */
    public String parameterTypesDesc() {
        return parameterTypesDesc;
    }

    /**
     * What a server resolved this target to (the service and method it calls), kept here so the next request of the
     * same target skips the lookups: a decoder hands every request of a connection that names the same target the
     * same instance. The server owns the value's meaning and checks it is its own; {@code null} until one is set.
     */
    public Object resolution() {
        return resolution;
    }

    /** Keeps a server's resolution of this target (see {@link #resolution()}); racing servers keep one of theirs. */
    public void resolution(Object value) {
        resolution = value;
    }

    /** The five leading items of a fastjson2 request body, length prefixes included. Do not modify. */
    byte[] fastjson2Prefix() {
        byte[] p = fastjson2Prefix;
        if (p == null) {
            p = encodePrefix();
            fastjson2Prefix = p;
        }
        return p;
    }

    /** The five leading strings of a hessian2 request body (strings carry no references). Do not modify. */
    byte[] hessian2Prefix() {
        byte[] p = hessian2Prefix;
        if (p == null) {
            io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.buffer(128);
            Hessian2Values.write(buf, dubboVersion, servicePath, serviceVersion, methodName, parameterTypesDesc);
            p = io.netty.buffer.ByteBufUtil.getBytes(buf);
            hessian2Prefix = p;
        }
        return p;
    }

    private byte[] encodePrefix() {
        String[] fields = {dubboVersion, servicePath, serviceVersion, methodName, parameterTypesDesc};
        byte[][] items = new byte[fields.length][];
        int size = 0;
        for (int i = 0; i < fields.length; i++) {
            String s = fields[i];
            if (Jsonb.isAscii(s)) {
                byte[] b = new byte[Jsonb.asciiStringSize(s.length())];
                Jsonb.writeAsciiString(b, 0, s);
                items[i] = b;
            } else {
                items[i] = JSONB.toBytes(s);
            }
            size += 4 + items[i].length;
        }
        byte[] out = new byte[size];
        int off = 0;
        for (byte[] item : items) {
            int n = item.length;
            out[off] = (byte) (n >>> 24);
            out[off + 1] = (byte) (n >>> 16);
            out[off + 2] = (byte) (n >>> 8);
            out[off + 3] = (byte) n;
            System.arraycopy(item, 0, out, off + 4, n);
            off += 4 + n;
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DubboMethod)) {
            return false;
        }
        DubboMethod m = (DubboMethod) o;
        return dubboVersion.equals(m.dubboVersion) && servicePath.equals(m.servicePath)
                && serviceVersion.equals(m.serviceVersion) && methodName.equals(m.methodName)
                && parameterTypesDesc.equals(m.parameterTypesDesc);
    }

    @Override
    public int hashCode() {
        return Objects.hash(dubboVersion, servicePath, serviceVersion, methodName, parameterTypesDesc);
    }

    @Override
    public String toString() {
        return servicePath + ":" + serviceVersion + "#" + methodName + "(" + parameterTypesDesc + ") dubbo="
                + dubboVersion;
    }
}
