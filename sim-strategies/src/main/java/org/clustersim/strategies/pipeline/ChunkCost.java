package org.clustersim.strategies.pipeline;

/**
 * What one stage costs for one microbatch, split as the zero-bubble schedules need it: the
 * forward (F), the backward for the input gradient (Bi) and the backward for the weight
 * gradient (W). A full backward costs Bi + W.
 *
 * @param forwardNs        F
 * @param backwardInputNs  Bi
 * @param backwardWeightNs W
 * @param forwardFlops     FLOPs of F, for metrics
 * @param backwardInputFlops  FLOPs of Bi
 * @param backwardWeightFlops FLOPs of W
 */
public record ChunkCost(long forwardNs, long backwardInputNs, long backwardWeightNs, double forwardFlops,
                        double backwardInputFlops, double backwardWeightFlops) {
    public ChunkCost {
        if (forwardNs < 0 || backwardInputNs < 0 || backwardWeightNs < 0) {
            throw new IllegalArgumentException("stage times must not be negative");
        }
    }

    /** A stage with the given times and no FLOP accounting, for schedule studies. */
    public static ChunkCost ofTimes(long forwardNs, long backwardInputNs, long backwardWeightNs) {
        return new ChunkCost(forwardNs, backwardInputNs, backwardWeightNs, 0, 0, 0);
    }

    /** Time of the whole backward, Bf = Bi + W. */
    public long backwardNs() {
        return backwardInputNs + backwardWeightNs;
    }

    /** FLOPs of the whole backward. */
    public double backwardFlops() {
        return backwardInputFlops + backwardWeightFlops;
    }
}
