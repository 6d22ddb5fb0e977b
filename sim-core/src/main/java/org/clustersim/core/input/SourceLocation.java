package org.clustersim.core.input;

/**
 * A position in an input file, 1-based.
 *
 * @param line   line number
 * @param column column number
 */
public record SourceLocation(int line, int column) implements java.io.Serializable {
    /** For values that have no place in the file (defaults). */
    public static final SourceLocation NONE = new SourceLocation(0, 0);
}
