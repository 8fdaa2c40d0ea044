package dev.sluice.codec.dubbo;

import com.alibaba.com.caucho.hessian.io.AbstractHessianOutput;
import com.alibaba.com.caucho.hessian.io.Serializer;
import com.alibaba.fastjson2.JSONWriter;
import com.alibaba.fastjson2.writer.ObjectWriter;
import java.io.IOException;
import java.lang.reflect.Type;

/**
 * Writes a {@link GenericException} under Dubbo's class name {@value GenericException#DUBBO_NAME}, with the three
 * fields a Dubbo consumer reads from it ({@code detailMessage}, {@code exceptionClass}, {@code exceptionMessage}),
 * in hessian2 (a class definition and an instance, as hessian-lite writes any object) and in fastjson2 (a typed JSONB
 * object). Reading needs nothing here: {@link ClassAllowlist} reads both Dubbo names as {@link GenericException}.
 *
 * <p>Stateless; any thread.
 */
final class GenericExceptionWire implements Serializer, ObjectWriter<GenericException> {
    static final GenericExceptionWire INSTANCE = new GenericExceptionWire();
    private static final String[] FIELDS = {"detailMessage", "exceptionClass", "exceptionMessage"};

    private GenericExceptionWire() {
    }

    private static String[] values(GenericException e) {
        return new String[] {e.getMessage(), e.getExceptionClass(), e.getExceptionMessage()};
    }

    /** hessian2: what hessian-lite's {@code JavaSerializer} writes for an object of these three fields. */
    @Override
    public void writeObject(Object obj, AbstractHessianOutput out) throws IOException {
        if (out.addRef(obj)) {
            return;
        }
        int ref = out.writeObjectBegin(GenericException.DUBBO_NAME);
        if (ref == -1) {
            out.writeClassFieldLength(FIELDS.length);
            for (String f : FIELDS) {
                out.writeString(f);
            }
            out.writeObjectBegin(GenericException.DUBBO_NAME);
        }
        for (String v : values((GenericException) obj)) {
            out.writeString(v);
        }
    }

    /** fastjson2: a JSONB object typed {@value GenericException#DUBBO_NAME}. */
    @Override
    public void writeJSONB(JSONWriter w, Object object, Object fieldName, Type fieldType, long features) {
        if (object == null) {
            w.writeNull();
            return;
        }
        w.writeTypeName(GenericException.DUBBO_NAME);
        write(w, object, fieldName, fieldType, features);
    }

    @Override
    public void write(JSONWriter w, Object object, Object fieldName, Type fieldType, long features) {
        if (object == null) {
            w.writeNull();
            return;
        }
        String[] values = values((GenericException) object);
        w.startObject();
        for (int i = 0; i < FIELDS.length; i++) {
            w.writeName(FIELDS[i]);
            w.writeString(values[i]);
        }
        w.endObject();
    }
}
