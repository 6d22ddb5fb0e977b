package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * GPipe (Huang et al., arXiv 1811.06965): every rank runs all forwards, then all backwards,
 * so each rank keeps the activations of all m microbatches alive at the peak.
 */
public final class GPipeSchedule implements PipelineSchedule {
    @Override
    public String name() {
        return "gpipe";
    }


    @Override
    public StagePlacement placement(int ranks, int microbatches) {
        return StagePlacement.linear(ranks);
    }

    @Override
    public List<PipelineOp> program(int rank, int ranks, int microbatches) {
        List<PipelineOp> out = new ArrayList<>(2 * microbatches);
        for (int i = 0; i < microbatches; i++) {
            out.add(PipelineOp.f(i, 0));
        }
        for (int i = 0; i < microbatches; i++) {
            out.add(PipelineOp.b(i, 0));
        }
        return out;
    }
}
