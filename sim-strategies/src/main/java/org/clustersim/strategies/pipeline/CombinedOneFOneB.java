package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * Megatron-core's combined 1F1B schedule, what {@code overlap_moe_expert_parallel_comm} runs
 * (the "1F1B A2A overlap": {@code megatron/core/pipeline_parallel/combined_1f1b.py}, and
 * {@code get_pp_rank_microbatches} in {@code schedules.py}): the interleaved 1F1B order (or,
 * without pipelining, 1F1B on one rank), with one more forward in each rank's warm-up so that
 * every steady-state forward is independent of the backward it is paired with, and each such
 * forward and backward run together as one overlapped unit ({@link PipelineOp.Overlapped}).
 * Inside a unit Megatron-core interleaves the two microbatches layer by layer
 * ({@code TransformerLayerSchedulePlan.run} in {@code models/common/model_chunk_schedule_plan.py}):
 * one's dispatch or combine all-to-all on the communication stream while the other's attention or
 * MLP computes. The order of forwards and of backwards is the base schedule's; only where each
 * backward runs changes. Megatron-core allows it with expert parallelism only, with a virtual
 * pipeline when pp &gt; 1, without full recomputation and without the {@code moe} recompute module.
 */
public final class CombinedOneFOneB implements PipelineSchedule {
    private final PipelineSchedule base;

    /**
     * @param base the interleaved schedule, or 1F1B (which Megatron-core combines only without
     *             pipelining, pp = 1)
     */
    public CombinedOneFOneB(PipelineSchedule base) {
        if (!(base instanceof InterleavedSchedule) && !(base instanceof OneFOneBSchedule)) {
            throw new IllegalArgumentException("the combined 1F1B schedule (MoE all-to-all overlap) builds on the "
                    + "interleaved schedule or on 1F1B without pipelining, not " + base.name());
        }
        this.base = base;
    }

    /** The schedule whose order of forwards and backwards this one keeps. */
    public PipelineSchedule base() {
        return base;
    }

    @Override
    public String name() {
        return base.name();
    }

    @Override
    public void validate(int ranks, int microbatches) {
        base.validate(ranks, microbatches);
        if (base instanceof OneFOneBSchedule && ranks > 1) {
            throw new IllegalArgumentException("Megatron-core overlaps the MoE all-to-all across microbatches with "
                    + "pipeline parallelism only under the interleaved schedule (a virtual pipeline size); got 1f1b on "
                    + ranks + " ranks");
        }
    }

    @Override
    public StagePlacement placement(int ranks, int microbatches) {
        return base.placement(ranks, microbatches);
    }

    @Override
    public double weightCopies(int ranks, int microbatches) {
        return base.weightCopies(ranks, microbatches);
    }

    /**
     * The base program's forwards and backwards in their order: the forwards the base runs
     * before its first backward (its warm-up and one more) alone, then each remaining forward paired with the next backward,
     * then the remaining backwards.
     */
    @Override
    public List<PipelineOp> program(int rank, int ranks, int microbatches) {
        List<PipelineOp.Action> forwards = new ArrayList<>();
        List<PipelineOp.Action> backwards = new ArrayList<>();
        int warmup = -1;
        for (PipelineOp op : base.program(rank, ranks, microbatches)) {
            PipelineOp.Action a = (PipelineOp.Action) op;
            if (a.kind() == ActionKind.FORWARD) {
                forwards.add(a);
            } else {
                if (warmup < 0) {
                    warmup = forwards.size();
                }
                backwards.add(a);
            }
        }
        // the base runs its warm-up and then one forward before its first backward: that forward
        // becomes Megatron-core's extra warm-up forward, and the next one is paired
        warmup = warmup < 0 ? forwards.size() : warmup;
        List<PipelineOp> out = new ArrayList<>(forwards.size() + backwards.size());
        int f = 0;
        int b = 0;
        for (; f < warmup; f++) {
            out.add(forwards.get(f));
        }
        for (; f < forwards.size(); f++) {
            out.add(new PipelineOp.Overlapped(forwards.get(f), backwards.get(b++)));
        }
        for (; b < backwards.size(); b++) {
            out.add(backwards.get(b));
        }
        return out;
    }
}
