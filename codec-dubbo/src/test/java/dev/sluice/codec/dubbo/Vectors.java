package dev.sluice.codec.dubbo;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The golden frames captured from real Dubbo 3.3.6 peers, read from the test class path
 * ({@code src/test/resources/dev/sluice/codec/dubbo/vectors/}; provenance in the {@code README.md} there). Any thread.
 */
public final class Vectors {
    private static final String ROOT = "/dev/sluice/codec/dubbo/vectors/";

    private Vectors() {
    }

    /** The fastjson2 (serialization id 23) frame {@code name}, e.g. {@code "getUser.response"}, as bytes. */
    public static byte[] frame(String name) {
        return TestBytes.hex(text("fastjson2/" + name + ".hex"));
    }

    /** The hessian2 (serialization id 2, Dubbo 3.3's default) frame {@code name} as bytes. */
    public static byte[] hessian2(String name) {
        return TestBytes.hex(text("hessian2/" + name + ".hex"));
    }

    /** A text file under the vectors directory, e.g. {@code "hessian2/headers.txt"}. */
    public static String text(String relative) {
        try (InputStream in = Vectors.class.getResourceAsStream(ROOT + relative)) {
            if (in == null) {
                throw new IllegalStateException("golden vector " + ROOT + relative + " is not on the test class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
