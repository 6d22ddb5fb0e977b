package org.clustersim.cli.report;

import java.util.List;

/**
 * Lanes of bars over time (a Gantt chart): the pipeline overview, one lane per pipeline rank,
 * one bar per run of one microbatch's pass.
 *
 * @param lanes  top to bottom
 * @param endNs  the right end of the time axis (the run's end: the axis is the report's shared {@link TimeAxis})
 * @param legend what the colours mean
 */
public record TimelineChart(String id, String title, String caption, List<Lane> lanes, long endNs,
                            List<Legend> legend) implements Chart {
    private static final double LEFT = TimeAxis.LEFT;
    private static final double LANE = 16;
    private static final double GAP = 4;

    public TimelineChart {
        lanes = List.copyOf(lanes);
        legend = List.copyOf(legend);
    }

    /** One row of bars. */
    public record Lane(String label, List<Bar> bars) {
        public Lane {
            bars = List.copyOf(bars);
        }
    }

    /** One bar from start to end (ns). */
    public record Bar(long startNs, long endNs, String colour, String tip) {
    }

    @Override
    public int width() {
        return TimeAxis.WIDTH;
    }

    @Override
    public int height() {
        return (int) Math.ceil(40 + Frame.legendHeight(width() - LEFT - 20, legend) + lanes.size() * (LANE + GAP)
                + 45);
    }

    @Override
    public int marks() {
        return lanes.stream().mapToInt(l -> l.bars().size()).sum();
    }

    @Override
    public void draw(Canvas c) {
        double legendH = Frame.legendHeight(width() - LEFT - 20, legend);
        Frame.legend(c, LEFT, 20, width() - 20, legend);
        double top = 30 + legendH;
        TimeAxis time = new TimeAxis(endNs);
        Frame f = time.frame(top, lanes.size() * (LANE + GAP), 0, 1);
        time.draw(c, f);
        for (int i = 0; i < lanes.size(); i++) {
            Lane lane = lanes.get(i);
            double y = top + i * (LANE + GAP) + GAP / 2;
            c.text(LEFT - 8, y + LANE - 4, lane.label(), 11, Canvas.Anchor.END, "#000");
            for (Bar b : lane.bars()) {
                double x0 = f.x(b.startNs());
                double w = Math.max(0.6, f.x(b.endNs()) - x0);
                c.rect(x0, y, w, LANE, b.colour(), b.tip());
            }
        }
    }
}
