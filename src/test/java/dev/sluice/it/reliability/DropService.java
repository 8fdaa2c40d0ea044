package dev.sluice.it.reliability;

import com.alibaba.fastjson2.JSONWriter;
import com.alibaba.fastjson2.annotation.JSONType;
import com.alibaba.fastjson2.writer.ObjectWriter;
import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;

/** A service whose answers cannot be delivered as produced: too large, not encodable, not readable. */
public interface DropService {
    /** A string of {@code n} characters. */
    String blob(int n);

    /** The same, asynchronously. */
    CompletableFuture<String> blobAsync(int n);

    /** A value whose encoding throws an {@link Error}, produced asynchronously. */
    CompletableFuture<Unwritable> unwritableAsync();

    /** A value whose class cannot initialise in a test JVM: reading it throws {@link ExceptionInInitializerError}. */
    CompletableFuture<Fragile> fragileAsync();

    /** A string of {@code n} characters, once the test opens the gate of the service that answers it. */
    CompletableFuture<String> gatedAsync(int n);

    /** The length of {@code s}: a request as large as its argument, with a tiny answer. */
    int length(String s);

    /** Blocks until the test releases it, then answers {@code tag}. */
    String hold(String tag);

    /** A value fastjson2 cannot write: its serializer throws {@link StackOverflowError}, as a too-deep graph would. */
    @JSONType(serializer = Unwritable.Writer.class)
    final class Unwritable implements java.io.Serializable {
        public String name = "unwritable";

        public static final class Writer implements ObjectWriter<Unwritable> {
            @Override
            public void write(JSONWriter w, Object object, Object fieldName, Type fieldType, long features) {
                throw new StackOverflowError("writing Unwritable");
            }
        }
    }

    /**
     * A result class whose static initialiser fails, as one does when it needs something the caller's process lacks:
     * the first instantiation throws {@link ExceptionInInitializerError}, later ones {@link NoClassDefFoundError}.
     * No server in the tests ever creates one; a scripted provider sends its bytes.
     */
    final class Fragile implements java.io.Serializable {
        static final int READY = fail();
        public String name;

        private static int fail() {
            throw new IllegalStateException("Fragile cannot initialise in this process");
        }
    }
}
