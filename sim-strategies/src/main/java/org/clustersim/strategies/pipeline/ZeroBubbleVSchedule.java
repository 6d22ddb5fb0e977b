package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * ZB-V (Qi et al., arXiv 2401.10241, section 6): two chunks per rank in a V (stage r and
 * stage 2p - 1 - r on rank r), the backward split into Bi and W. The order follows the
 * public torch.distributed.pipelining implementation: 2(p - r) - 1 forwards of chunk 0,
 * r pairs of (chunk-1 forward, chunk-0 forward), p - r rounds of chunk-1 F, Bi, W, then a
 * steady state of (F, Bi, W) on chunk 0 and on chunk 1, and a cool-down of Bi passes with
 * the W passes deferred behind them. Orders are generated for max(m, 2p - 1) microbatches
 * and the microbatches beyond m dropped, as that implementation does.
 */
public final class ZeroBubbleVSchedule implements PipelineSchedule {
    @Override
    public String name() {
        return "zb-v";
    }


    @Override
    public StagePlacement placement(int ranks, int microbatches) {
        return StagePlacement.vShape(ranks);
    }

    @Override
    public List<PipelineOp> program(int rank, int ranks, int microbatches) {
        int n = Math.max(2 * ranks - 1, microbatches);
        List<PipelineOp.Action> ops = new ArrayList<>();
        int f0 = 0;
        int f1 = 0;
        int b0 = 0;
        int b1 = 0;
        for (int i = 0; i < 2 * (ranks - rank) - 1; i++) {
            ops.add(PipelineOp.f(f0++, 0));
        }
        for (int i = 0; i < rank; i++) {
            ops.add(PipelineOp.f(f1++, 1));
            ops.add(PipelineOp.f(f0++, 0));
        }
        for (int i = 0; i < ranks - rank; i++) {
            ops.add(PipelineOp.f(f1++, 1));
            ops.add(PipelineOp.bi(b1, 1));
            ops.add(PipelineOp.w(b1++, 1));
        }
        while (f1 < f0 || f0 < n) {
            if (f0 < n) {
                ops.add(PipelineOp.f(f0++, 0));
            }
            ops.add(PipelineOp.bi(b0, 0));
            ops.add(PipelineOp.w(b0++, 0));
            ops.add(PipelineOp.f(f1++, 1));
            ops.add(PipelineOp.bi(b1, 1));
            ops.add(PipelineOp.w(b1++, 1));
        }
        int w0 = b0;
        int w1 = b1;
        for (int i = 0; i < rank; i++) {
            ops.add(PipelineOp.bi(b0++, 0));
            ops.add(PipelineOp.bi(b1++, 1));
        }
        for (int i = 0; i < ranks - rank; i++) {
            ops.add(PipelineOp.bi(b0++, 0));
            ops.add(PipelineOp.w(w0++, 0));
        }
        while (w1 < b1) {
            ops.add(PipelineOp.w(w1++, 1));
        }
        while (w0 < b0) {
            ops.add(PipelineOp.w(w0++, 0));
        }
        List<PipelineOp> out = new ArrayList<>(ops.size());
        for (PipelineOp.Action a : ops) {
            if (a.microbatch() < microbatches) {
                out.add(a);
            }
        }
        return out;
    }
}
