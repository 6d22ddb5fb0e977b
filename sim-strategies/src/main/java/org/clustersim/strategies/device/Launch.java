package org.clustersim.strategies.device;

/**
 * What launching a kernel costs. The host needs {@code hostNs} to issue one kernel (PyTorch and
 * Transformer Engine's per-op overhead), so a kernel shorter than that leaves the GPU waiting
 * for the next; back to back on the GPU, consecutive kernels are separated by {@code gapNs}.
 * A kernel of t ns therefore occupies the stream for max(t + gap, host).
 *
 * @param hostNs host-side cost of issuing one kernel
 * @param gapNs  device-side gap between consecutive kernels
 */
public record Launch(double hostNs, double gapNs) {
    public Launch {
        if (!(hostNs >= 0) || !(gapNs >= 0)) {
            throw new IllegalArgumentException("launch costs must not be negative");
        }
    }

    /** Stream time of {@code kernels} equal kernels doing {@code ns} of work in all. */
    public double ns(double ns, int kernels) {
        if (kernels <= 0) {
            return ns;
        }
        return kernels * Math.max(ns / kernels + gapNs, hostNs);
    }
}
