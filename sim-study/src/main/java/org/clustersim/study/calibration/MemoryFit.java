package org.clustersim.study.calibration;

/**
 * The share of HBM bandwidth that streaming (memory-bound) kernels reach:
 * {@code memory.streamEfficiency} = achieved / {@code memory.bandwidthTBps} of the base profile,
 * rounded to four significant digits. The cost model times a memory-bound kernel as bytes /
 * (bandwidth x efficiency).
 *
 * @param achievedTBps      the measured bandwidth
 * @param bandwidthTBps     the base profile's nominal bandwidth
 * @param streamEfficiency  their ratio, rounded
 */
public record MemoryFit(double achievedTBps, double bandwidthTBps, double streamEfficiency) {
    /** The ratio of a measurement to the nominal bandwidth (at most 1, checked by the caller). */
    public static MemoryFit of(double achievedTBps, double bandwidthTBps) {
        return new MemoryFit(achievedTBps, bandwidthTBps, ProfileNumber.fitted(achievedTBps / bandwidthTBps));
    }
}
