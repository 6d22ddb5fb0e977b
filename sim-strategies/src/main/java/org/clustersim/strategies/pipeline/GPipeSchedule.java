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
    public void validate(int ranks, int microbatches) {
        if (ranks < 1 || microbatches < 1) {
            throw new IllegalArgumentException("gpipe needs at least one rank and one microbatch");
        }
    }

    @Override
    public List<PipelineAction> actions(int rank, int ranks, int microbatches) {
        List<PipelineAction> out = new ArrayList<>(2 * microbatches);
        for (int i = 0; i < microbatches; i++) {
            out.add(PipelineAction.forward(i));
        }
        for (int i = 0; i < microbatches; i++) {
            out.add(PipelineAction.backward(i));
        }
        return out;
    }
}
