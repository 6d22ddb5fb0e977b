package org.clustersim.cli.report;

/**
 * Where a {@link Chart} draws: a few primitives in pixel coordinates (origin top left) that
 * both an SVG document and a Java2D image can carry out, so the HTML report, the SVG plots and
 * the PNG plots show the same picture from one drawing routine.
 */
public interface Canvas {
    /** Text anchoring, as in SVG's text-anchor. */
    enum Anchor { START, MIDDLE, END }

    /**
     * A filled rectangle.
     *
     * @param tip hover text (a tooltip in the browser); null for none
     */
    void rect(double x, double y, double w, double h, String fill, String tip);

    /** A straight line; {@code dashed} draws it broken. */
    void line(double x1, double y1, double x2, double y2, String stroke, double width, boolean dashed);

    /** A line through points given as x0, y0, x1, y1, ... */
    void polyline(double[] xy, String stroke, double width);

    /** A small filled circle (a scatter point). */
    void dot(double x, double y, double r, String fill, String tip);

    /** Text whose baseline starts (ends, is centred) at x, y; {@code size} in pixels. */
    void text(double x, double y, String text, double size, Anchor anchor, String fill);
}
