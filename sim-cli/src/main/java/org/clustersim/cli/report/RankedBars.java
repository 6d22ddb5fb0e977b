package org.clustersim.cli.report;

import java.util.List;

/**
 * Horizontal bars sorted by the caller, one per entry, with the value written beside each: a
 * what-if sweep's variants ranked by slowdown.
 *
 * @param bars   top to bottom
 * @param values how values are labelled
 */
public record RankedBars(String id, String title, String caption, List<Bar> bars, Axis values) implements Chart {
    private static final double LEFT = 330;
    private static final double BAR = 14;
    private static final double GAP = 4;

    public RankedBars {
        bars = List.copyOf(bars);
    }

    /** One entry; {@code value} at least 0. */
    public record Bar(String label, double value, String colour, String tip) {
    }

    @Override
    public int width() {
        return 900;
    }

    @Override
    public int height() {
        return (int) Math.ceil(20 + bars.size() * (BAR + GAP) + 40);
    }

    @Override
    public int marks() {
        return (int) bars.stream().filter(b -> b.value() > 0).count();
    }

    @Override
    public void draw(Canvas c) {
        double max = bars.stream().mapToDouble(Bar::value).max().orElse(0);
        double[] ticks = Axis.ticks(0, max, 6);
        Frame f = new Frame(LEFT, 20, width() - LEFT - 80, bars.size() * (BAR + GAP), 0, ticks[ticks.length - 1], 0,
                1);
        f.xAxis(c, ticks, values, null);
        for (int i = 0; i < bars.size(); i++) {
            Bar b = bars.get(i);
            double y = 20 + i * (BAR + GAP) + GAP / 2;
            String label = b.label().length() > 52 ? b.label().substring(0, 51) + "\u2026" : b.label();
            c.text(LEFT - 6, y + BAR - 3, label, 11, Canvas.Anchor.END, "#000");
            double w = f.x(b.value()) - f.left;
            if (w > 0) {
                c.rect(f.left, y, w, BAR, b.colour(), b.tip());
            }
            c.text(f.left + w + 4, y + BAR - 3, values.format(b.value()), 11, Canvas.Anchor.START, Frame.AXIS);
        }
    }
}
