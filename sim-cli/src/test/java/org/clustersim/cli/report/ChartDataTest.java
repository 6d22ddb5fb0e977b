package org.clustersim.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The reductions that keep figures small: bucketed memory lines, binned link rates. */
class ChartDataTest {
    @Test
    void bucketedMemoryKeepsEveryPeakAndTrough() {
        java.util.Random rnd = new java.util.Random(7);
        int n = 20_000;
        long[] t = new long[n];
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            t[i] = i * 10L + rnd.nextInt(5);
            v[i] = rnd.nextGaussian();
        }
        double[][] xy = MemoryOverTime.steps(t, v, n * 10L);
        assertTrue(xy[0].length <= 4 * 300 + 1, "bounded: " + xy[0].length);
        assertEquals(java.util.Arrays.stream(v).max().orElseThrow(), java.util.Arrays.stream(xy[1]).max().orElseThrow());
        assertEquals(java.util.Arrays.stream(v).min().orElseThrow(), java.util.Arrays.stream(xy[1]).min().orElseThrow());
        for (int i = 1; i < xy[0].length; i++) {
            assertTrue(xy[0][i] >= xy[0][i - 1], "time order at " + i);
        }
    }

    @Test
    void binMeansConserveTheStepFunctionsIntegral() {
        long[] t = {0, 150, 400, 999};
        double[] v = {2, 0, 5, 1};
        double[] bins = LinkHeat.binMeans(t, v, 1000, 7);
        double integral = 0;
        for (double b : bins) {
            integral += b * 1000 / 7.0;
        }
        assertEquals(2 * 150 + 5 * 599 + 1, integral, 1e-6);
        assertEquals(2, bins[0], 1e-9);
    }

    @Test
    void aScatterChartJoinsTheHighlightedPointsInOrderOfX() {
        // a plan's candidates: cost against step time, the front the ones nothing beats on both
        ScatterChart chart = new ScatterChart("front", "Pareto front", "test", java.util.List.of(
                new ScatterChart.Point(30, 1.0, "c", true), new ScatterChart.Point(10, 3.0, "a", true),
                new ScatterChart.Point(20, 2.5, "x", false), new ScatterChart.Point(20, 1.5, "b", true)),
                "GPUs", Axis.NUMBER, "step time", Axis.NUMBER);
        String svg = chart.svg();
        assertEquals(4, svg.split("<circle", -1).length - 1);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("points=\"([^\"]*)\"").matcher(svg);
        assertTrue(m.find(), svg);
        String[] pts = m.group(1).split(" ");
        assertEquals(3, pts.length, "the three points on the front");
        double last = Double.NEGATIVE_INFINITY;
        for (String p : pts) {
            double x = Double.parseDouble(p.split(",")[0]);
            assertTrue(x > last, "in order of x: " + m.group(1));
            last = x;
        }
        assertTrue(svg.indexOf("<title>b</title>") > 0 && svg.contains("<title>x</title>"), "hover text per point");
    }
}
