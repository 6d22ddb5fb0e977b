package org.clustersim.strategies.pipeline;

/**
 * Cost of each stage of the pipeline as run on a given rank, and of DualPipe's overlapped
 * forward-backward pairs.
 */
public interface PipelineCosts {
    /** Cost of stage {@code stage} (0..S-1 along a microbatch's path) when it runs on {@code rank}. */
    ChunkCost of(int rank, int stage);

    /**
     * Time of an overlapped pair on {@code rank}: the forward of {@code forwardStage} together
     * with the full backward of {@code backwardStage}. Without better knowledge this is the sum
     * of the two: overlapping hides communication, not compute.
     */
    default long overlappedNs(int rank, int forwardStage, int backwardStage) {
        return of(rank, forwardStage).forwardNs() + of(rank, backwardStage).backwardNs();
    }
}
