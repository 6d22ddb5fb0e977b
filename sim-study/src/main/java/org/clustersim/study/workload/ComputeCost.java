package org.clustersim.study.workload;

import org.clustersim.strategies.device.DeviceProfile;

/**
 * How a trace's compute nodes are timed on the target device. A node that counts its FLOPs
 * ({@code num_ops}) runs at the device profile's best measured bf16 GEMM rate when a profile is
 * given; otherwise, and for nodes without FLOPs, it takes its recorded duration times
 * {@code durationScale} (below 1 where the target GPU is faster than the traced one).
 *
 * @param profile       the target device's profile, or null to time every node by its duration
 * @param durationScale factor on recorded durations, above 0
 */
public record ComputeCost(DeviceProfile profile, double durationScale) {
    public ComputeCost {
        if (!(durationScale > 0) || Double.isInfinite(durationScale)) {
            throw new IllegalArgumentException("duration scale must be above 0: " + durationScale);
        }
    }

    /** A node's time, ns. */
    public long ns(EtNode node) {
        if (node.cpuOp()) {
            return 0;
        }
        if (node.numOps() > 0 && profile != null && profile.bf16Gemm() != null) {
            return Math.round(node.numOps() / profile.bf16Gemm().bestFlops() * 1e9);
        }
        return Math.round(node.durationMicros() * 1000.0 * durationScale);
    }
}
