package org.clustersim.study.goodput;

import java.util.Arrays;

/**
 * A sample's mean and the half-width of its 95% confidence interval (normal approximation,
 * sample standard deviation; 0 for a single value).
 */
public record Mean(double mean, double halfWidth) {

    public static Mean of(double[] v) {
        double mean = Arrays.stream(v).average().orElse(0);
        double var = 0;
        for (double x : v) {
            var += (x - mean) * (x - mean);
        }
        double sd = v.length > 1 ? Math.sqrt(var / (v.length - 1)) : 0;
        return new Mean(mean, 1.96 * sd / Math.sqrt(v.length));
    }

    public double low() {
        return mean - halfWidth;
    }

    public double high() {
        return mean + halfWidth;
    }
}
