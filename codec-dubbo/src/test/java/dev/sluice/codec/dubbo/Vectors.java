package dev.sluice.codec.dubbo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Loads the golden frames captured from Dubbo 3.3.6 ({@code shared/vectors/*.hex}). */
final class Vectors {
    private static final Path DIR = locate();

    private Vectors() {
    }

    /** The frame {@code name} (e.g. {@code "getUser.response"}) as bytes. */
    static byte[] frame(String name) {
        try {
            return TestBytes.hex(Files.readString(DIR.resolve(name + ".hex")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    /** Walks up from the working directory until a directory holds {@code shared/vectors}. */
    private static Path locate() {
        String override = System.getProperty("sluice.vectors");
        if (override != null) {
            return Paths.get(override);
        }
        for (Path p = Paths.get(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolve("shared").resolve("vectors");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("shared/vectors not found above " + System.getProperty("user.dir")
                + "; set -Dsluice.vectors=<dir>");
    }
}
