package org.clustersim.cli.report;

import java.util.List;

/**
 * Lines over an x axis with optional horizontal reference lines: memory over time per
 * pipeline stage against the HBM capacity.
 *
 * @param series     the lines
 * @param references dashed horizontal lines (a capacity), drawn across the plot
 * @param x          format of the x values
 * @param y          format of the y values
 * @param time       with x a simulated time, the report's shared time axis (its plot columns and
 *                   extent, 0 to the run's end); null: x spans the data, on a chart of its own width
 */
public record LineChart(String id, String title, String caption, List<Series> series, List<Reference> references,
                        Axis x, Axis y, TimeAxis time) implements Chart {
    private static final double OWN_LEFT = 70;

    public LineChart {
        series = List.copyOf(series);
        references = List.copyOf(references);
    }

    /** A chart whose x axis spans its data. */
    public LineChart(String id, String title, String caption, List<Series> series, List<Reference> references,
                     Axis x, Axis y) {
        this(id, title, caption, series, references, x, y, null);
    }

    private double left() {
        return time != null ? TimeAxis.LEFT : OWN_LEFT;
    }

    /** One line through (xs[i], ys[i]). */
    public record Series(String label, String colour, double[] xs, double[] ys) {
        public Series {
            if (xs.length != ys.length) {
                throw new IllegalArgumentException("xs and ys differ in length");
            }
        }
    }

    /** A horizontal line at {@code value}. */
    public record Reference(String label, double value, String colour) {
    }

    @Override
    public int width() {
        return time != null ? TimeAxis.WIDTH : 900;
    }

    @Override
    public int height() {
        return (int) Math.ceil(360 + legendHeight());
    }

    private double legendHeight() {
        return Frame.legendHeight(width() - left() - 20, legend());
    }

    private List<Legend> legend() {
        java.util.ArrayList<Legend> items = new java.util.ArrayList<>();
        series.forEach(s -> items.add(new Legend(s.label(), s.colour())));
        references.forEach(r -> items.add(new Legend(r.label(), r.colour())));
        return items;
    }

    @Override
    public int marks() {
        return series.stream().mapToInt(s -> s.xs().length).sum();
    }

    @Override
    public void draw(Canvas c) {
        double xMin = Double.POSITIVE_INFINITY;
        double xMax = Double.NEGATIVE_INFINITY;
        double yMax = 0;
        for (Series s : series) {
            for (int i = 0; i < s.xs().length; i++) {
                xMin = Math.min(xMin, s.xs()[i]);
                xMax = Math.max(xMax, s.xs()[i]);
                yMax = Math.max(yMax, s.ys()[i]);
            }
        }
        for (Reference r : references) {
            yMax = Math.max(yMax, r.value());
        }
        if (xMin > xMax) {
            xMin = 0;
            xMax = 1;
        }
        if (time != null) {
            xMin = 0;
            xMax = time.endNs();
        }
        yMax *= 1.05;
        Frame.legend(c, left(), 20, width() - 20, legend());
        double top = 45 + legendHeight();
        double[] yTicks = Axis.ticks(0, yMax, 6);
        Frame f = time != null ? time.frame(top, height() - top - 45, 0, yTicks[yTicks.length - 1])
                : new Frame(OWN_LEFT, top, width() - OWN_LEFT - 20, height() - top - 45, xMin, xMax, 0,
                yTicks[yTicks.length - 1]);
        f.yAxis(c, yTicks, y, null);
        if (time != null) {
            time.draw(c, f);
        } else {
            f.xAxis(c, Axis.ticks(xMin, xMax, 10), x, null);
        }
        for (Reference r : references) {
            c.line(f.left, f.y(r.value()), f.right(), f.y(r.value()), r.colour(), 1.5, true);
            c.text(f.right() - 4, f.y(r.value()) - 4, r.label(), 11, Canvas.Anchor.END, r.colour());
        }
        for (Series s : series) {
            double[] xy = new double[2 * s.xs().length];
            for (int i = 0; i < s.xs().length; i++) {
                xy[2 * i] = f.x(s.xs()[i]);
                xy[2 * i + 1] = f.y(s.ys()[i]);
            }
            c.polyline(xy, s.colour(), 1.5);
        }
    }
}
