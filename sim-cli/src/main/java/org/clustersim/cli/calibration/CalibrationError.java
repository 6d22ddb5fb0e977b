package org.clustersim.cli.calibration;

/**
 * One problem found in a measurement file, the base profile or a calibration flag.
 *
 * @param source  the file (or flag) it was found in, as the user named it
 * @param line    1-based line number, 0 when the problem has no line (a missing column or file)
 * @param field   the column, header line, profile key or flag concerned, empty for the whole line
 * @param message what was found and what was expected
 */
public record CalibrationError(String source, int line, String field, String message) {
    /** {@code source:line: field: message}, leaving out what is not known. */
    public String format() {
        StringBuilder sb = new StringBuilder(source);
        if (line > 0) {
            sb.append(':').append(line);
        }
        sb.append(": ");
        if (!field.isEmpty()) {
            sb.append(field).append(": ");
        }
        return sb.append(message).toString();
    }
}
