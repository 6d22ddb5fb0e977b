package org.clustersim.cli.report;

import java.util.List;

/**
 * Horizontal bars, one per row, each split into coloured segments laid end to end: a step's
 * time per pipeline rank split into compute, interference, exposed communication and bubble.
 *
 * @param rows   the bars, top to bottom
 * @param legend the segment colours
 * @param values how segment values are labelled on the axis
 */
public record StackedBars(String id, String title, String caption, List<Row> rows, List<Legend> legend, Axis values)
        implements Chart {
    private static final double LEFT = 150;
    private static final double BAR = 18;
    private static final double GAP = 6;

    public StackedBars {
        rows = List.copyOf(rows);
        legend = List.copyOf(legend);
    }

    /** One bar. */
    public record Row(String label, List<Segment> segments) {
        public Row {
            segments = List.copyOf(segments);
        }

        double total() {
            return segments.stream().mapToDouble(Segment::value).sum();
        }
    }

    /** One part of a bar: its value, colour and hover text. */
    public record Segment(double value, String colour, String tip) {
    }

    @Override
    public int width() {
        return 900;
    }

    @Override
    public int height() {
        return (int) Math.ceil(40 + Frame.legendHeight(width() - LEFT, legend) + rows.size() * (BAR + GAP) + 40);
    }

    @Override
    public int marks() {
        return (int) rows.stream().flatMap(r -> r.segments().stream()).filter(s -> s.value() > 0).count();
    }

    @Override
    public void draw(Canvas c) {
        double max = rows.stream().mapToDouble(Row::total).max().orElse(0);
        double legendH = Frame.legendHeight(width() - LEFT - 20, legend);
        Frame.legend(c, LEFT, 20, width() - 20, legend);
        double top = 30 + legendH;
        Frame f = new Frame(LEFT, top, width() - LEFT - 20, rows.size() * (BAR + GAP), 0, max, 0, 1);
        f.xAxis(c, Axis.ticks(0, max, 8), values, null);
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            double y = top + i * (BAR + GAP) + GAP / 2;
            c.text(LEFT - 8, y + BAR - 5, r.label(), 12, Canvas.Anchor.END, "#000");
            double at = 0;
            for (Segment s : r.segments()) {
                if (s.value() > 0) {
                    c.rect(f.x(at), y, f.x(at + s.value()) - f.x(at), BAR, s.colour(), s.tip());
                }
                at += s.value();
            }
        }
    }
}
