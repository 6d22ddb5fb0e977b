package org.clustersim.core.input;

import java.nio.file.Path;

/**
 * One problem found in an input file.
 *
 * @param file     the file
 * @param location line and column, or {@link SourceLocation#NONE}
 * @param path     dotted field path such as {@code parallelism.pp}, empty for the whole file
 * @param message  what was found and what was expected
 */
public record InputError(Path file, SourceLocation location, String path, String message) {
    /** {@code file:line:col: path: message}. */
    public String format() {
        StringBuilder sb = new StringBuilder().append(file);
        if (location.line() > 0) {
            sb.append(':').append(location.line()).append(':').append(location.column());
        }
        sb.append(": ");
        if (!path.isEmpty()) {
            sb.append(path).append(": ");
        }
        return sb.append(message).toString();
    }
}
