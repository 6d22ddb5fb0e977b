package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * Interleaved 1F1B (Narayanan et al., arXiv 2104.04473, section 2.2.2), in Megatron-LM's
 * order: each rank holds v chunks (stage k on rank k mod p); microbatches enter in groups of
 * p, each group running through chunk 0, then chunk 1, and so on. Rank r warms up with
 * 2(p - r - 1) + (v - 1)p forwards (all of them when m = p), then alternates one forward and
 * one backward, backwards visiting chunks in reverse. Requires m to be a multiple of p.
 */
public final class InterleavedSchedule implements PipelineSchedule {
    private final int v;

    /** @param v model chunks per rank, at least 2 */
    public InterleavedSchedule(int v) {
        if (v < 2) {
            throw new IllegalArgumentException("interleaved needs v >= 2 chunks per rank, got " + v);
        }
        this.v = v;
    }

    public int chunks() {
        return v;
    }

    @Override
    public String name() {
        return "interleaved";
    }

    @Override
    public void validate(int ranks, int microbatches) {
        PipelineSchedule.requirePositive(name(), ranks, microbatches);
        if (microbatches % ranks != 0) {
            throw new IllegalArgumentException("interleaved needs the microbatch count m to be a multiple of the "
                    + "pipeline size p, got m=" + microbatches + ", p=" + ranks);
        }
    }

    @Override
    public StagePlacement placement(int ranks, int microbatches) {
        return StagePlacement.interleaved(ranks, v);
    }

    @Override
    public List<PipelineOp> program(int rank, int ranks, int microbatches) {
        int total = microbatches * v;
        int warmup = microbatches == ranks ? total : Math.min(total, 2 * (ranks - rank - 1) + (v - 1) * ranks);
        List<PipelineOp> out = new ArrayList<>(2 * total);
        int nextF = 0;
        int nextB = 0;
        for (; nextF < warmup; nextF++) {
            out.add(forward(nextF, ranks));
        }
        while (nextF < total) {
            out.add(forward(nextF++, ranks));
            out.add(backward(nextB++, ranks));
        }
        while (nextB < total) {
            out.add(backward(nextB++, ranks));
        }
        return out;
    }

    /** The k-th forward of a rank: groups of p microbatches per chunk. */
    private PipelineOp forward(int k, int ranks) {
        int chunk = (k / ranks) % v;
        return PipelineOp.f(microbatch(k, ranks), chunk);
    }

    private PipelineOp backward(int k, int ranks) {
        int chunk = v - 1 - (k / ranks) % v;
        return PipelineOp.b(microbatch(k, ranks), chunk);
    }

    private int microbatch(int k, int ranks) {
        return (k / (ranks * v)) * ranks + k % ranks;
    }
}
