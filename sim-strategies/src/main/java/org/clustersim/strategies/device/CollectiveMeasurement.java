package org.clustersim.strategies.device;

/**
 * A collective's fitted constants from nccl-tests measurements on this kind of system:
 * {@code t(S) = latency + S x busFactor / busBandwidth}, busFactor being nccl-tests'
 * convention for the operation (2(n-1)/n for all-reduce, (n-1)/n for all-gather,
 * reduce-scatter and all-to-all, 1 for broadcast and reduce).
 *
 * @param op               collective, in nccl-tests' names (all_reduce, all_gather, ...)
 * @param medium           nvlink (all ranks in one server) or network
 * @param ranks            ranks measured
 * @param latencyNs        fitted fixed cost of one call
 * @param busBytesPerS     fitted bus bandwidth at large sizes
 */
public record CollectiveMeasurement(String op, String medium, int ranks, double latencyNs, double busBytesPerS) {
}
