package org.clustersim.cli.report;

import java.util.List;

/**
 * The plot area of a chart inside its margins, with linear value-to-pixel scales and the
 * axes, grid lines and legend the charts share.
 */
final class Frame {
    static final String AXIS = "#555";
    static final String GRID = "#e6e6e6";

    final double left;
    final double top;
    final double width;
    final double height;
    private final double xMin;
    private final double xMax;
    private final double yMin;
    private final double yMax;

    Frame(double left, double top, double width, double height, double xMin, double xMax, double yMin, double yMax) {
        this.left = left;
        this.top = top;
        this.width = width;
        this.height = height;
        this.xMin = xMin;
        this.xMax = xMax > xMin ? xMax : xMin + 1;
        this.yMin = yMin;
        this.yMax = yMax > yMin ? yMax : yMin + 1;
    }

    double x(double v) {
        return left + (v - xMin) / (xMax - xMin) * width;
    }

    /** Pixel row of value v (larger values higher up). */
    double y(double v) {
        return top + height - (v - yMin) / (yMax - yMin) * height;
    }

    double bottom() {
        return top + height;
    }

    double right() {
        return left + width;
    }

    /** Vertical grid lines with labels under the plot, and a label for the axis. */
    void xAxis(Canvas c, double[] ticks, Axis format, String label) {
        for (double t : ticks) {
            double px = x(t);
            if (px < left - 0.5 || px > right() + 0.5) {
                continue;
            }
            c.line(px, top, px, bottom(), GRID, 1, false);
            c.text(px, bottom() + 14, format.format(t), 11, Canvas.Anchor.MIDDLE, AXIS);
        }
        c.line(left, bottom(), right(), bottom(), AXIS, 1, false);
        if (label != null) {
            c.text(left + width / 2, bottom() + 30, label, 12, Canvas.Anchor.MIDDLE, AXIS);
        }
    }

    /** Horizontal grid lines with labels left of the plot. */
    void yAxis(Canvas c, double[] ticks, Axis format, String label) {
        for (double t : ticks) {
            double py = y(t);
            if (py < top - 0.5 || py > bottom() + 0.5) {
                continue;
            }
            c.line(left, py, right(), py, GRID, 1, false);
            c.text(left - 6, py + 4, format.format(t), 11, Canvas.Anchor.END, AXIS);
        }
        c.line(left, top, left, bottom(), AXIS, 1, false);
        if (label != null) {
            c.text(left, top - 8, label, 12, Canvas.Anchor.START, AXIS);
        }
    }

    /** A row of colour swatches and names starting at x, y; wraps at {@code maxX}. */
    static void legend(Canvas c, double x, double y, double maxX, List<Legend> items) {
        double at = x;
        double row = y;
        for (Legend item : items) {
            double w = 18 + 6.5 * item.label().length() + 14;
            if (at + w > maxX && at > x) {
                at = x;
                row += 16;
            }
            c.rect(at, row - 9, 12, 10, item.colour(), null);
            c.text(at + 16, row, item.label(), 11, Canvas.Anchor.START, "#000");
            at += w;
        }
    }

    /** Height a legend of these items needs at that width. */
    static double legendHeight(double width, List<Legend> items) {
        double at = 0;
        int rows = items.isEmpty() ? 0 : 1;
        for (Legend item : items) {
            double w = 18 + 6.5 * item.label().length() + 14;
            if (at + w > width && at > 0) {
                at = 0;
                rows++;
            }
            at += w;
        }
        return rows * 16;
    }
}
