package org.clustersim.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A command's result written as indented JSON through Jackson's streaming generator: records
 * (components in declaration order, a component marked {@code @JsonInclude(NON_NULL)} left out
 * when null), lists, maps, strings, numbers, booleans, enums and null, in the very bytes
 * Jackson's data binding ({@link OutputFiles#mapper()}) writes for them. Any other type goes
 * through that data binding, inside the same document.
 *
 * <p>Why: data binding builds its serializers by introspection on first use, which in a cold JVM
 * costs more than simulating a small scenario (measured in docs/benchmarks.md, "Scale", tenth
 * round). Walking records needs only their accessors.
 */
final class JsonOutput {
    /**
     * Doubles in the shortest form that reads back as the same value (Jackson's Schubfach), the
     * same on every JDK: {@code Double.toString} of JDK 17 wrote some with a 17th digit that JDK 19
     * and newer leave out, so outputs depended on the JVM the launcher picked.
     */
    static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(com.fasterxml.jackson.core.StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();
    /** Each record type's components and which of them are left out when null. */
    private static final Map<Class<?>, Component[]> COMPONENTS = new ConcurrentHashMap<>();

    private record Component(String name, java.lang.reflect.Method accessor, boolean omitNull) {
    }

    private final JsonGenerator gen;
    private ObjectMapper fallback;

    private JsonOutput(JsonGenerator gen) {
        this.gen = gen;
    }

    /**
     * Writes {@code value} to {@code out}, leaving {@code out} open. A number that is not finite
     * fails with {@link IllegalStateException}, naming where it is.
     */
    static void write(Object value, OutputStream out) throws IOException {
        try (JsonGenerator gen = FACTORY.createGenerator(out)) {
            gen.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            gen.setPrettyPrinter(new DefaultPrettyPrinter());
            new JsonOutput(gen).value(value);
        }
    }

    private void value(Object v) throws IOException {
        if (v == null) {
            gen.writeNull();
        } else if (v instanceof String s) {
            gen.writeString(s);
        } else if (v instanceof Double d) {
            finite(d, gen);
        } else if (v instanceof Integer i) {
            gen.writeNumber(i);
        } else if (v instanceof Long l) {
            gen.writeNumber(l);
        } else if (v instanceof Boolean b) {
            gen.writeBoolean(b);
        } else if (v instanceof Record r) {
            record(r);
        } else if (v instanceof Collection<?> c) {
            gen.writeStartArray(c, c.size());
            for (Object e : c) {
                value(e);
            }
            gen.writeEndArray();
        } else if (v instanceof Map<?, ?> m && keysAreStrings(m)) {
            gen.writeStartObject(m);
            for (Map.Entry<?, ?> e : m.entrySet()) {
                gen.writeFieldName((String) e.getKey());
                value(e.getValue());
            }
            gen.writeEndObject();
        } else if (v instanceof Enum<?> e) {
            gen.writeString(e.name());
        } else {
            if (fallback == null) {
                fallback = OutputFiles.mapper();
            }
            fallback.writeValue(gen, v);
        }
    }

    /** Writes {@code d}, or fails naming where in the document a number that is not finite came. */
    static void finite(double d, JsonGenerator gen) throws IOException {
        if (!Double.isFinite(d)) {
            com.fasterxml.jackson.core.JsonStreamContext at = gen.getOutputContext();
            // an array's context counts the elements already written: name the one being written
            String where = at.inArray() ? at.getParent().pathAsPointer() + "/" + at.getEntryCount()
                    : at.pathAsPointer().toString();
            throw new IllegalStateException("a result is " + d + " at " + where + "; refusing to write it as JSON");
        }
        gen.writeNumber(d);
    }

    private void record(Record r) throws IOException {
        gen.writeStartObject(r);
        for (Component c : COMPONENTS.computeIfAbsent(r.getClass(), JsonOutput::components)) {
            Object v = read(c, r);
            if (v == null && c.omitNull()) {
                continue;
            }
            gen.writeFieldName(c.name());
            value(v);
        }
        gen.writeEndObject();
    }

    private static Object read(Component c, Record r) {
        try {
            return c.accessor().invoke(r);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + c.name() + " of " + r.getClass().getName(), e);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
    }

    private static Component[] components(Class<?> type) {
        RecordComponent[] rc = type.getRecordComponents();
        Component[] out = new Component[rc.length];
        for (int i = 0; i < rc.length; i++) {
            java.lang.reflect.Method accessor = rc[i].getAccessor();
            accessor.setAccessible(true);
            JsonInclude include = accessor.getAnnotation(JsonInclude.class);
            out[i] = new Component(rc[i].getName(), accessor,
                    include != null && include.value() == JsonInclude.Include.NON_NULL);
        }
        return out;
    }

    private static boolean keysAreStrings(Map<?, ?> m) {
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) {
                return false;
            }
        }
        return true;
    }
}
