package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * 1F1B, the PipeDream-Flush schedule (Narayanan et al., arXiv 2104.04473, section 2.2.1):
 * rank r runs min(p - r - 1, m) warm-up forwards, then alternates one forward and one
 * backward, then drains the remaining backwards. It has GPipe's bubble but keeps at most
 * p - r microbatches of activations alive on rank r. With m less than p it still runs.
 */
public final class OneFOneBSchedule implements PipelineSchedule {
    @Override
    public String name() {
        return "1f1b";
    }


    @Override
    public StagePlacement placement(int ranks, int microbatches) {
        return StagePlacement.linear(ranks);
    }

    @Override
    public List<PipelineOp> program(int rank, int ranks, int microbatches) {
        int warmup = Math.min(ranks - rank - 1, microbatches);
        List<PipelineOp> out = new ArrayList<>(2 * microbatches);
        for (int i = 0; i < warmup; i++) {
            out.add(PipelineOp.f(i, 0));
        }
        for (int i = 0; i < microbatches - warmup; i++) {
            out.add(PipelineOp.f(warmup + i, 0));
            out.add(PipelineOp.b(i, 0));
        }
        for (int i = microbatches - warmup; i < microbatches; i++) {
            out.add(PipelineOp.b(i, 0));
        }
        return out;
    }
}
