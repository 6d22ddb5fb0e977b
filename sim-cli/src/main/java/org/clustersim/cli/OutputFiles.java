package org.clustersim.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.clustersim.cli.output.AtomicOutput;

/** Writes a command's output files all-or-nothing; a file that cannot be written is bad input (exit 2). */
final class OutputFiles {
    private OutputFiles() {
    }

    /** Writes {@code value} as indented JSON to {@code file}, all-or-nothing. */
    static void writeJson(Path file, Object value) {
        write(Map.of(file, json(value)));
    }

    /** {@code value} as indented JSON with a final newline. */
    static AtomicOutput.Content json(Object value) {
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);
        return o -> {
            o.write(mapper.writeValueAsBytes(value));
            o.write('\n');
        };
    }

    /** Writes every file (in map order) under a temporary name, then moves them all into place. */
    static void write(Map<Path, AtomicOutput.Content> files) {
        AtomicOutput output = new AtomicOutput();
        try {
            for (Map.Entry<Path, AtomicOutput.Content> e : files.entrySet()) {
                output.stage(e.getKey(), e.getValue());
            }
            output.commit();
        } catch (IOException e) {
            output.discard();
            throw new InputException("cannot write output: " + e.getMessage());
        }
    }
}
