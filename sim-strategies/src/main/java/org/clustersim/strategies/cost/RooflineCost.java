package org.clustersim.strategies.cost;

import org.clustersim.topology.AcceleratorSpec;

/**
 * Compute time as FLOPs divided by the achievable rate: peak of the chosen precision times the
 * chip's calibrated GEMM efficiency. The shape-dependent efficiency curve and the memory-bound
 * side of the roofline come with the full workload model.
 */
public final class RooflineCost {
    private final double flopsPerSecond;

    public RooflineCost(AcceleratorSpec spec, Precision precision) {
        double peak = precision.peak(spec);
        if (!(peak > 0)) {
            throw new IllegalArgumentException(spec.name() + " has no " + precision + " peak");
        }
        this.flopsPerSecond = peak * spec.gemmEfficiency();
    }

    /** Achieved FLOP/s the model assumes for large matrix multiplies. */
    public double flopsPerSecond() {
        return flopsPerSecond;
    }

    /** Nanoseconds to execute {@code flops}, rounded to the nearest nanosecond. */
    public long durationNs(double flops) {
        return Math.round(flops / flopsPerSecond * 1e9);
    }
}
