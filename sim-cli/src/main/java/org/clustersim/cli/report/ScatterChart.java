package org.clustersim.cli.report;

import java.util.Comparator;
import java.util.List;

/**
 * Points on two axes, with the highlighted ones joined by a line in x order: a plan's
 * candidate layouts by cost and step time with the Pareto front drawn through the ones no other
 * candidate beats on both.
 *
 * @param points  the candidates
 * @param xLabel  what x measures
 * @param yLabel  what y measures
 */
public record ScatterChart(String id, String title, String caption, List<Point> points, String xLabel, Axis x,
                           String yLabel, Axis y) implements Chart {
    private static final double LEFT = 80;

    public ScatterChart {
        points = List.copyOf(points);
    }

    /** One point; {@code highlighted} points are on the front and joined. */
    public record Point(double x, double y, String tip, boolean highlighted) {
    }

    @Override
    public int width() {
        return 800;
    }

    @Override
    public int height() {
        return 420;
    }

    @Override
    public int marks() {
        return points.size();
    }

    @Override
    public void draw(Canvas c) {
        double xMin = points.stream().mapToDouble(Point::x).min().orElse(0);
        double xMax = points.stream().mapToDouble(Point::x).max().orElse(1);
        double yMax = points.stream().mapToDouble(Point::y).max().orElse(1) * 1.05;
        double pad = (xMax - xMin) * 0.05;
        double[] xt = Axis.ticks(Math.max(0, xMin - pad), xMax + pad, 8);
        double[] yt = Axis.ticks(0, yMax, 6);
        Frame f = new Frame(LEFT, 40, width() - LEFT - 30, height() - 90, xt[0], xt[xt.length - 1], 0, yt[yt.length - 1]);
        f.yAxis(c, yt, y, yLabel);
        f.xAxis(c, xt, x, xLabel);
        List<Point> front = points.stream().filter(Point::highlighted).sorted(Comparator.comparingDouble(Point::x))
                .toList();
        double[] xy = new double[2 * front.size()];
        for (int i = 0; i < front.size(); i++) {
            xy[2 * i] = f.x(front.get(i).x());
            xy[2 * i + 1] = f.y(front.get(i).y());
        }
        c.polyline(xy, "#e15759", 1.5);
        for (Point p : points) {
            c.dot(f.x(p.x()), f.y(p.y()), p.highlighted() ? 5 : 3.5, p.highlighted() ? "#e15759" : "#4e79a7", p.tip());
        }
    }
}
