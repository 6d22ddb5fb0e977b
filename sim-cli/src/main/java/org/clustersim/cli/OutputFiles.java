package org.clustersim.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.output.OutputException;
import org.clustersim.core.input.InputException;

/**
 * A command's output files as one transaction ({@link AtomicOutput}): {@link #check} every
 * target before simulating, then {@link #write} them all-or-nothing. A target that cannot be
 * written is bad input (exit 2), named as the user gave it.
 */
final class OutputFiles {
    private OutputFiles() {
    }

    /**
     * Checks, before any work, that {@code path} (given with {@code option}) can be written.
     *
     * @throws InputException naming the option and path and why not
     */
    static void check(String option, Path path) {
        if (path == null) {
            return;
        }
        try {
            AtomicOutput.check(path);
        } catch (OutputException e) {
            throw new InputException(option + " " + (path.toString().isEmpty() ? "(empty)" : path) + ": "
                    + e.reason());
        }
    }

    /**
     * Checks several targets of one command (option to path; null paths are skipped): each as
     * {@link #check(String, Path)}, and no two the same file.
     */
    static void check(Map<String, Path> targets) {
        Map<Path, String> seen = new java.util.HashMap<>();
        for (Map.Entry<String, Path> t : targets.entrySet()) {
            if (t.getValue() == null) {
                continue;
            }
            check(t.getKey(), t.getValue());
            String before = seen.put(t.getValue().toAbsolutePath().normalize(), t.getKey());
            if (before != null) {
                throw new InputException(t.getKey() + " " + t.getValue() + ": the same file as " + before
                        + "; give each output its own file");
            }
        }
    }

    /** Writes {@code value} as indented JSON to {@code file}, all-or-nothing. */
    static void writeJson(Path file, Object value) {
        write(Map.of(file, json(value)));
    }

    /**
     * {@code value} as indented JSON with a final newline. A number that is not finite is a bug
     * in the producer, never written as a string: it fails the command as an internal error.
     */
    static AtomicOutput.Content json(Object value) {
        return o -> {
            try {
                JsonOutput.write(value, o);
            } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
                if (e.getCause() instanceof IllegalStateException bug) {
                    throw bug;
                }
                throw e;
            }
            o.write('\n');
        };
    }

    private static final FiniteDouble FINITE = new FiniteDouble();

    /**
     * Jackson's data binding, indented and refusing NaN and infinities: what {@link JsonOutput}
     * hands the types it does not walk itself, and the layout it matches.
     */
    static ObjectMapper mapper() {
        SimpleModule finite = new SimpleModule("finite-numbers");
        finite.addSerializer(Double.class, FINITE);
        finite.addSerializer(double.class, FINITE);
        return new ObjectMapper(JsonOutput.FACTORY.copy()).enable(SerializationFeature.INDENT_OUTPUT)
                .disable(SerializationFeature.WRAP_EXCEPTIONS).registerModule(finite);
    }

    /** Writes every file (in map order): all targets are checked first, then staged, then committed. */
    static void write(Map<Path, AtomicOutput.Content> files) {
        AtomicOutput output = new AtomicOutput();
        try {
            for (Path p : files.keySet()) {
                AtomicOutput.check(p);
            }
            for (Map.Entry<Path, AtomicOutput.Content> e : files.entrySet()) {
                output.stage(e.getKey(), e.getValue());
            }
            output.commit();
        } catch (OutputException e) {
            output.discard();
            throw new InputException("cannot write " + e.getMessage() + "; nothing was written");
        } catch (IOException e) {
            output.discard();
            throw new InputException("cannot write output: " + e.getMessage() + "; nothing was written");
        } finally {
            output.discard();
        }
    }

    /** A double that must be finite. */
    private static final class FiniteDouble extends StdSerializer<Double> {
        private static final long serialVersionUID = 1L;

        FiniteDouble() {
            super(Double.class);
        }

        @Override
        public void serialize(Double value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            JsonOutput.finite(value, gen);
        }
    }

}
