package org.clustersim.strategies.pipeline;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;

/** One compute task per action on the rank's first device, timed by {@link PipelineCosts}. */
public final class SimpleStageWork implements StageWork {
    private final PipelineCosts costs;

    public SimpleStageWork(PipelineCosts costs) {
        this.costs = costs;
    }

    @Override
    public Emitted emit(TaskGraph.Builder graph, int[] devices, int rank, int stage, PipelineOp.Action a,
                        String label) {
        int compute = graph.stream(devices[0], "compute", StreamKind.COMPUTE);
        ChunkCost c = costs.of(rank, stage);
        TaskTag tag = TaskTag.of(a.kind().pass(), a.microbatch(), a.chunk());
        int id = switch (a.kind()) {
            case FORWARD -> graph.compute(label, tag, compute, c.forwardNs(), c.forwardFlops());
            case BACKWARD -> graph.compute(label, tag, compute, c.backwardNs(), c.backwardFlops());
            case BACKWARD_INPUT -> graph.compute(label, tag, compute, c.backwardInputNs(),
                    c.backwardInputFlops());
            case BACKWARD_WEIGHT -> graph.compute(label, tag, compute, c.backwardWeightNs(),
                    c.backwardWeightFlops());
        };
        boolean grads = a.kind() == ActionKind.BACKWARD || a.kind() == ActionKind.BACKWARD_WEIGHT;
        return new Emitted(id, id, grads ? new int[] {id} : new int[0]);
    }

    @Override
    public Overlap emitOverlapped(TaskGraph.Builder graph, int[] devices, int rank, PipelineOp.Overlapped pair,
                                  int forwardStage, int backwardStage, String label) {
        int compute = graph.stream(devices[0], "compute", StreamKind.COMPUTE);
        ChunkCost cf = costs.of(rank, forwardStage);
        ChunkCost cb = costs.of(rank, backwardStage);
        // one task for both: tagged with the forward's microbatch and chunk
        TaskTag tag = TaskTag.of(TaskTag.Pass.OVERLAPPED, pair.forward().microbatch(), pair.forward().chunk());
        int id = graph.compute(label, tag, compute, costs.overlappedNs(rank, forwardStage, backwardStage),
                cf.forwardFlops() + cb.backwardFlops());
        Emitted both = new Emitted(id, id, new int[] {id});
        return new Overlap(both, both);
    }
}
