package org.clustersim.cli.report;

import java.util.List;

/**
 * A grid of cells coloured by a value from 0 to 1, rows over time bins: the busiest links'
 * utilisation over the step.
 *
 * @param rows  row labels, top to bottom
 * @param cells cells[row][bin], each 0..1
 * @param endNs the time the last bin ends (bins split 0..endNs evenly; the report's shared {@link TimeAxis})
 * @param tips  hover text per cell; null for none
 */
public record HeatMap(String id, String title, String caption, List<String> rows, double[][] cells, long endNs,
                      String[][] tips) implements Chart {
    private static final double LEFT = TimeAxis.LEFT;
    private static final double ROW = 14;

    public HeatMap {
        rows = List.copyOf(rows);
        if (cells.length != rows.size()) {
            throw new IllegalArgumentException("one row of cells per label");
        }
    }

    @Override
    public int width() {
        return TimeAxis.WIDTH;
    }

    @Override
    public int height() {
        return (int) Math.ceil(50 + rows.size() * ROW + 45);
    }

    @Override
    public int marks() {
        int n = 0;
        for (double[] row : cells) {
            for (double v : row) {
                n += v > 0 ? 1 : 0;
            }
        }
        return n;
    }

    @Override
    public void draw(Canvas c) {
        double top = 45;
        TimeAxis time = new TimeAxis(endNs);
        Frame f = time.frame(top, rows.size() * ROW, 0, 1);
        // colour scale
        for (int i = 0; i < 50; i++) {
            c.rect(LEFT + i * 4, 16, 4, 10, Palette.heat(i / 49.0), null);
        }
        c.text(LEFT - 6, 25, "0%", 11, Canvas.Anchor.END, Frame.AXIS);
        c.text(LEFT + 206, 25, "100% of the link's bandwidth", 11, Canvas.Anchor.START, Frame.AXIS);
        for (int r = 0; r < rows.size(); r++) {
            double y = top + r * ROW;
            c.text(LEFT - 6, y + ROW - 3, rows.get(r), 10, Canvas.Anchor.END, "#000");
            int bins = cells[r].length;
            for (int b = 0; b < bins; b++) {
                double v = cells[r][b];
                if (v > 0) {
                    double x0 = f.left + b * f.width / bins;
                    c.rect(x0, y, f.width / bins + 0.05, ROW - 1, Palette.heat(v),
                            tips == null ? null : tips[r][b]);
                }
            }
        }
        time.draw(c, f);
    }
}
