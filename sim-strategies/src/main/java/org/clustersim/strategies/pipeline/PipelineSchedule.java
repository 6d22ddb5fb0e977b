package org.clustersim.strategies.pipeline;

import java.util.List;

/**
 * A pipeline schedule: for each rank, the order in which it runs its forward and backward
 * actions. The schedule says nothing about timing; the engine runs these lists with the real
 * data dependencies between ranks, so any bubble is whatever the timeline shows.
 */
public interface PipelineSchedule {
    /** The schedule's name as used on the command line and in scenario files. */
    String name();

    /**
     * Checks that this schedule can run {@code microbatches} microbatches over {@code ranks} ranks.
     *
     * @throws IllegalArgumentException naming the violated constraint
     */
    void validate(int ranks, int microbatches);

    /** The ordered actions of one rank. Every rank runs one forward and one backward per microbatch. */
    List<PipelineAction> actions(int rank, int ranks, int microbatches);
}
