package org.clustersim.cli.scenario;

/**
 * A position in a scenario file, 1-based.
 *
 * @param line   line number
 * @param column column number
 */
public record SourceLocation(int line, int column) {
    /** For values that have no place in the file (defaults). */
    public static final SourceLocation NONE = new SourceLocation(0, 0);
}
