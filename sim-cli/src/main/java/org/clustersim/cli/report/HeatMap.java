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
 * @param rowMarks a swatch per row left of its label (a shared cluster's link coloured by the job that
 *              crossed it), with its hover text, and their legend; null for none
 */
public record HeatMap(String id, String title, String caption, List<String> rows, double[][] cells, long endNs,
                      String[][] tips, RowMarks rowMarks) implements Chart {
    private static final double LEFT = TimeAxis.LEFT;
    private static final double ROW = 14;
    private static final double SWATCH = 8;

    /**
     * A colour and hover text per row, and the legend of the colours.
     *
     * @param colours one per row
     * @param tips    one per row
     * @param legend  what each colour stands for
     */
    public record RowMarks(List<String> colours, List<String> tips, List<Legend> legend) {
        public RowMarks {
            colours = List.copyOf(colours);
            tips = List.copyOf(tips);
            legend = List.copyOf(legend);
        }
    }

    public HeatMap {
        rows = List.copyOf(rows);
        if (cells.length != rows.size()) {
            throw new IllegalArgumentException("one row of cells per label");
        }
        if (rowMarks != null && (rowMarks.colours().size() != rows.size() || rowMarks.tips().size() != rows.size())) {
            throw new IllegalArgumentException("one mark per row");
        }
    }

    /** Without row marks. */
    public HeatMap(String id, String title, String caption, List<String> rows, double[][] cells, long endNs,
                   String[][] tips) {
        this(id, title, caption, rows, cells, endNs, tips, null);
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
        double labelEnd = LEFT - 6;
        if (rowMarks != null) {
            labelEnd -= SWATCH + 4;
            // right of the colour scale, then on a second line under it
            double x = LEFT + 400;
            double base = 25;
            for (Legend e : rowMarks.legend()) {
                double w = SWATCH + 16 + 6.5 * e.label().length();
                if (x + w > TimeAxis.WIDTH && base == 25) {
                    x = LEFT;
                    base = 39;
                }
                c.rect(x, base - 8, SWATCH, SWATCH, e.colour(), e.label());
                c.text(x + SWATCH + 4, base, e.label(), 11, Canvas.Anchor.START, Frame.AXIS);
                x += w;
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            double y = top + r * ROW;
            if (rowMarks != null) {
                c.rect(LEFT - 6 - SWATCH, y + (ROW - 1 - SWATCH) / 2, SWATCH, SWATCH, rowMarks.colours().get(r),
                        rowMarks.tips().get(r));
            }
            c.text(labelEnd, y + ROW - 3, rows.get(r), 10, Canvas.Anchor.END, "#000");
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
