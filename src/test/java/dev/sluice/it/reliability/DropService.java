package dev.sluice.it.reliability;

import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.JSONWriter;
import com.alibaba.fastjson2.annotation.JSONType;
import com.alibaba.fastjson2.reader.ObjectReader;
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

    /** A value whose decoding throws an {@link Error} at the caller. */
    CompletableFuture<Unreadable> unreadableAsync();

    /** Blocks until the test releases it, then answers {@code tag}. */
    String hold(String tag);

    /** A value fastjson2 cannot write: its serializer throws {@link StackOverflowError}, as a too-deep graph would. */
    @JSONType(serializer = Unwritable.Writer.class)
    final class Unwritable {
        public String name = "unwritable";

        public static final class Writer implements ObjectWriter<Unwritable> {
            @Override
            public void write(JSONWriter w, Object object, Object fieldName, Type fieldType, long features) {
                throw new StackOverflowError("writing Unwritable");
            }
        }
    }

    /** A value that is written normally but whose reader throws {@link StackOverflowError}. */
    @JSONType(deserializer = Unreadable.Reader.class)
    final class Unreadable {
        public String name = "unreadable";

        public static final class Reader implements ObjectReader<Unreadable> {
            @Override
            public Unreadable readObject(JSONReader r, Type fieldType, Object fieldName, long features) {
                throw new StackOverflowError("reading Unreadable");
            }
        }
    }
}
