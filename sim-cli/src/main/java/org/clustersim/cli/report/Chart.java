package org.clustersim.cli.report;

/**
 * One figure of a report, drawn from measured data onto a {@link Canvas}: the HTML report
 * embeds it as SVG and {@code --plots} writes it as SVG and PNG. Charts carry their data
 * already reduced to what can be seen (bounded rows, bars and samples), so a figure's size
 * does not grow with the cluster.
 */
public sealed interface Chart permits StackedBars, TimelineChart, LineChart, HeatMap, RankedBars, ScatterChart {
    /** Identifier: the SVG element id and the plot file name (letters, digits, dashes). */
    String id();

    String title();

    /** One or two sentences under the figure: what is drawn and from what. */
    String caption();

    int width();

    int height();

    /** Number of marks (bars, cells, points, line samples) with data: 0 means an empty chart. */
    int marks();

    void draw(Canvas c);

    /** This chart as an SVG document. */
    default String svg() {
        SvgCanvas c = new SvgCanvas();
        draw(c);
        return c.document(id(), title(), width(), height());
    }
}
