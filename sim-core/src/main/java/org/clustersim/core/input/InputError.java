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
    /**
     * A problem in a file read line by line (a CSV, a tool's output) or in a command-line flag:
     * {@code source} is the file as the user named it, or the flag; {@code line} 0 when no line
     * is concerned.
     */
    public static InputError at(String source, int line, String field, String message) {
        return new InputError(Path.of(source), line > 0 ? new SourceLocation(line, 0) : SourceLocation.NONE, field,
                message);
    }

    /**
     * {@code file:line:col: path: message}, leaving out what is not known (a column of 0, say).
     * Always one line: control characters quoted from the input (a tab, a newline in a quoted
     * value) are shown escaped, so an error can never pass for a second one or a stack trace.
     */
    public String format() {
        StringBuilder sb = new StringBuilder().append(file);
        if (location.line() > 0) {
            sb.append(':').append(location.line());
            if (location.column() > 0) {
                sb.append(':').append(location.column());
            }
        }
        sb.append(": ");
        if (!path.isEmpty()) {
            sb.append(path).append(": ");
        }
        return printable(sb.append(message).toString());
    }

    /** {@code text} with tabs, newlines and other control characters written as escapes ({@code \t}, {@code \u0001}). */
    public static String printable(String text) {
        StringBuilder sb = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c != 0x7f) {
                if (sb != null) {
                    sb.append(c);
                }
                continue;
            }
            if (sb == null) {
                sb = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            sb.append(switch (c) {
                case '\t' -> "\\t";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                default -> String.format(java.util.Locale.ROOT, "\\u%04x", (int) c);
            });
        }
        return sb == null ? text : sb.toString();
    }
}
