package org.clustersim.strategies.pipeline;

/**
 * What one pipeline stage costs for one microbatch.
 *
 * @param forwardNs     forward compute time
 * @param backwardNs    backward compute time (input and weight gradients)
 * @param forwardFlops  FLOPs of the forward, for metrics
 * @param backwardFlops FLOPs of the backward, for metrics
 */
public record StageCost(long forwardNs, long backwardNs, double forwardFlops, double backwardFlops) {
    public StageCost {
        if (forwardNs < 0 || backwardNs < 0) {
            throw new IllegalArgumentException("stage times must not be negative");
        }
    }

    /** A stage with the given times and no FLOP accounting, for schedule studies. */
    public static StageCost ofTimes(long forwardNs, long backwardNs) {
        return new StageCost(forwardNs, backwardNs, 0, 0);
    }
}
