package org.clustersim.core.engine;

/**
 * How much of a GPU's compute throughput a communication task takes while it is in flight. A
 * collective library's kernels occupy streaming multiprocessors (NCCL runs one thread block per
 * channel, never sharing an SM with compute) and draw on the same HBM as the compute kernels
 * beside them, so a GEMM overlapped with an all-gather runs slower than alone (Rashidi et al.
 * and follow-ups measure 19% on average, up to 40%; see the project's kernels.md, section 5).
 * Transfers driven by copy engines or by the NIC alone (RDMA) take nothing.
 *
 * <p>The engine asks once per communication task, when it starts; every device the task runs on
 * loses that share until it ends, concurrent tasks' shares adding up.
 */
@FunctionalInterface
public interface Interference {
    /** No communication slows compute: overlap is free. */
    Interference NONE = task -> 0;

    /**
     * @param task a communication task about to start
     * @return the fraction of each of its devices' compute throughput it takes while in flight,
     *         0 (none) to below 1
     */
    double computeShare(Task task);
}
