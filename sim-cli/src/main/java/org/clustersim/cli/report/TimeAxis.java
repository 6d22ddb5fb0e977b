package org.clustersim.cli.report;

/**
 * The time axis the report's charts over simulated time share (the pipeline timeline, memory
 * per stage, the busiest links): the same plot columns (left edge and width on a chart of
 * {@value #WIDTH} pixels) and the same extent, from 0 to the run's end, with the same ticks, so
 * an instant sits at the same x in each chart and they read against each other down the page.
 * Why: each chart chose its own margins and extent, and the same instant drifted from chart to
 * chart.
 *
 * @param endNs the run's end (the timeline's makespan)
 */
public record TimeAxis(long endNs) {
    /** Width of a chart drawn over this axis. */
    public static final int WIDTH = 1000;
    /** Left edge of the plot: room for the lane and link labels. */
    public static final double LEFT = 300;
    /** Margin right of the plot. */
    public static final double RIGHT = 20;

    /** Width of the plot area. */
    public double plotWidth() {
        return WIDTH - LEFT - RIGHT;
    }

    /** The plot area from {@code top}, {@code height} high, time across and {@code yMin..yMax} up. */
    Frame frame(double top, double height, double yMin, double yMax) {
        return new Frame(LEFT, top, plotWidth(), height, 0, endNs, yMin, yMax);
    }

    /** The time ticks, their labels and the axis title under {@code f}. */
    void draw(Canvas c, Frame f) {
        f.xAxis(c, Axis.ticks(0, endNs, 10), Axis.DURATION_NS, "simulated time");
    }
}
