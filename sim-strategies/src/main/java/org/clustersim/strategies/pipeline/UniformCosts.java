package org.clustersim.strategies.pipeline;

import java.util.Map;

/**
 * Costs for schedule studies in the notation of the pipeline-bubble literature: F, Bi and W
 * are one rank's share of one model copy (L/p layers) for one microbatch; a chunk of share s
 * (1/v when interleaving, 1/2 in a V, 1 for each DualPipe copy) costs s times that. F&amp;B is
 * the time of one overlapped DualPipe pair in the same units. Selected ranks can be slowed by
 * a factor to study stragglers and uneven stages.
 *
 * @param forwardNs        F
 * @param backwardInputNs  Bi
 * @param backwardWeightNs W
 * @param overlappedNs     F&amp;B, or a negative value for F + Bi + W
 * @param chunkShare       size of one chunk relative to a rank's share
 * @param slowdown         rank to time multiplier (absent ranks run at 1.0)
 */
public record UniformCosts(long forwardNs, long backwardInputNs, long backwardWeightNs, long overlappedNs,
                           double chunkShare, Map<Integer, Double> slowdown) implements PipelineCosts {
    public UniformCosts {
        slowdown = Map.copyOf(slowdown);
    }

    /** Equal stages with the given times for the schedule's chunk size; no overlap gain, no slow rank. */
    public static UniformCosts of(long f, long bi, long w, PipelineSchedule schedule, int ranks, int microbatches) {
        return new UniformCosts(f, bi, w, -1, schedule.placement(ranks, microbatches).chunkShare(), Map.of());
    }

    /** The same costs with one rank slowed by {@code factor}. */
    public UniformCosts withSlowRank(int rank, double factor) {
        Map<Integer, Double> m = new java.util.HashMap<>(slowdown);
        m.put(rank, factor);
        return new UniformCosts(forwardNs, backwardInputNs, backwardWeightNs, overlappedNs, chunkShare, m);
    }

    /** The same costs with the given overlapped-pair time. */
    public UniformCosts withOverlapped(long fAndB) {
        return new UniformCosts(forwardNs, backwardInputNs, backwardWeightNs, fAndB, chunkShare, slowdown);
    }

    private long scaled(long ns, int rank) {
        return Math.round(ns * chunkShare * slowdown.getOrDefault(rank, 1.0));
    }

    @Override
    public ChunkCost of(int rank, int stage) {
        return ChunkCost.ofTimes(scaled(forwardNs, rank), scaled(backwardInputNs, rank),
                scaled(backwardWeightNs, rank));
    }

    @Override
    public long overlappedNs(int rank, int forwardStage, int backwardStage) {
        if (overlappedNs < 0) {
            return PipelineCosts.super.overlappedNs(rank, forwardStage, backwardStage);
        }
        return scaled(overlappedNs, rank);
    }
}
