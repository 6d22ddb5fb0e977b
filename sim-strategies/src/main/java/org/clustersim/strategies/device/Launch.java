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

    /**
     * The same kernels replayed from a CUDA graph: each node still pays the device's gap, but the
     * host issues one launch for the whole graph, so no kernel waits for the host (kernel time
     * plus gap, never the host floor). The gap is already the per-node cost measured inside a
     * graph (kernels.md section 4: ~0.58 us per node on sm_120; 1.17 us measured on an H100 SXM,
     * docs/calibration/h100-device-2026-11-26.md).
     * The graph's own launch (one host call, ~2.6-2.8 us enqueued asynchronously, same source) is
     * taken as hidden under the previous work: it is not on the device's path unless a whole graph
     * runs shorter than one host launch.
     */
    public Launch graphReplay() {
        return new Launch(0, gapNs);
    }
}
