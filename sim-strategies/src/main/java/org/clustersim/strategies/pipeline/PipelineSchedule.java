package org.clustersim.strategies.pipeline;

import java.util.List;

/**
 * A pipeline schedule: where the stages of the model sit ({@link StagePlacement}) and, for
 * each rank, the order in which it runs its forward and backward work. The schedule says
 * nothing about timing; the engine runs these programs with the real data dependencies
 * between stages, so any bubble is whatever the timeline shows.
 */
public interface PipelineSchedule {
    /** The schedule's name as used on the command line and in scenario files. */
    String name();

    /**
     * Checks that this schedule can run {@code microbatches} microbatches over {@code ranks} ranks;
     * by default any positive counts.
     *
     * @throws IllegalArgumentException naming the violated constraint
     */
    default void validate(int ranks, int microbatches) {
        requirePositive(name(), ranks, microbatches);
    }

    /** Where each stage of each microbatch runs. */
    StagePlacement placement(int ranks, int microbatches);

    /**
     * The ordered program of one rank. Over all its entries, a rank runs for every (microbatch,
     * chunk) it holds one forward and either one full backward or one backward-input and one
     * backward-weight.
     */
    List<PipelineOp> program(int rank, int ranks, int microbatches);

    /** Model copies each rank holds weights of: 2 for DualPipe, 1 otherwise. */
    default double weightCopies(int ranks, int microbatches) {
        StagePlacement p = placement(ranks, microbatches);
        return p.chunksPerRank() * p.chunkShare();
    }

    /** Shared check: at least one rank and one microbatch. */
    static void requirePositive(String name, int ranks, int microbatches) {
        if (ranks < 1) {
            throw new IllegalArgumentException(name + " needs at least 1 pipeline rank, got " + ranks);
        }
        if (microbatches < 1) {
            throw new IllegalArgumentException(name + " needs at least 1 microbatch, got " + microbatches);
        }
    }
}
