package org.clustersim.strategies.pipeline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * DualPipe and DualPipeV (DeepSeek-V3 technical report, arXiv 2412.19437, section 3.2.1, and
 * DeepSeek's public DualPipe repository), whose eight-phase rank programs this class
 * reproduces:
 * <ol>
 *   <li>forwards of chunk 0;</li>
 *   <li>pairs of chunk-0 and chunk-1 forwards;</li>
 *   <li>chunk-1 Bi, a deferred W, chunk-1 F;</li>
 *   <li>the steady state: overlapped (F chunk 0, B chunk 1) and (F chunk 1, B chunk 0) pairs;</li>
 *   <li>chunk-1 B, overlapped (F chunk 1, B chunk 0);</li>
 *   <li>chunk-1 and chunk-0 backwards, the later half split into Bi and a deferred W;</li>
 *   <li>a deferred W, chunk-0 Bi;</li>
 *   <li>the remaining deferred W passes, oldest first.</li>
 * </ol>
 * DualPipe runs two model copies in opposite directions over p ranks (p even, m even,
 * m &gt;= 2p; half the microbatches enter at each end); on the first half of the ranks chunk
 * 0 is the copy flowing down, on the second half the copy flowing up. DualPipeV folds one
 * copy into a V over p ranks holding 2p stages (m &gt;= 2p); chunk 0 is stage r, chunk 1 stage
 * 2p - 1 - r. The middle ranks of DualPipe (the last rank of DualPipeV) do not overlap the
 * first steady pair, as in the reference implementation.
 */
public final class DualPipeSchedule implements PipelineSchedule {
    private final boolean vShape;

    /** @param vShape true for DualPipeV, false for DualPipe */
    public DualPipeSchedule(boolean vShape) {
        this.vShape = vShape;
    }

    @Override
    public String name() {
        return vShape ? "dualpipev" : "dualpipe";
    }

    @Override
    public void validate(int ranks, int microbatches) {
        PipelineSchedule.requirePositive(name(), ranks, microbatches);
        if (!vShape && ranks % 2 != 0) {
            throw new IllegalArgumentException("dualpipe needs an even pipeline size p, got p=" + ranks);
        }
        if (!vShape && microbatches % 2 != 0) {
            throw new IllegalArgumentException("dualpipe needs an even microbatch count m, got m=" + microbatches);
        }
        if (microbatches < 2 * ranks) {
            throw new IllegalArgumentException(name() + " needs m >= 2p microbatches, got m=" + microbatches
                    + ", p=" + ranks);
        }
    }

    @Override
    public StagePlacement placement(int ranks, int microbatches) {
        return vShape ? StagePlacement.vShape(ranks) : StagePlacement.dualPipe(ranks, microbatches);
    }

    @Override
    public List<PipelineOp> program(int rank, int ranks, int microbatches) {
        return new RankProgram(rank, ranks, microbatches).build();
    }

    /** Builds one rank's program, tracking per-chunk counters and the FIFO of deferred W passes. */
    private final class RankProgram {
        private final int rank;
        private final int ranks;
        private final int microbatches;
        private final int[] nextF = new int[2];
        private final int[] nextB = new int[2];
        private final Deque<PipelineOp.Action> deferredW = new ArrayDeque<>();
        private final List<PipelineOp> out = new ArrayList<>();

        RankProgram(int rank, int ranks, int microbatches) {
            this.rank = rank;
            this.ranks = ranks;
            this.microbatches = microbatches;
        }

        /** Global microbatch id of the i-th microbatch through a chunk of this rank. */
        private int microbatch(int chunk, int i) {
            if (vShape) {
                return i;
            }
            int direction = chunk ^ (rank >= ranks / 2 ? 1 : 0);
            return direction * (microbatches / 2) + i;
        }

        private PipelineOp.Action forward(int chunk) {
            return PipelineOp.f(microbatch(chunk, nextF[chunk]++), chunk);
        }

        private PipelineOp.Action backward(int chunk, boolean split) {
            int mb = microbatch(chunk, nextB[chunk]++);
            if (split) {
                deferredW.add(PipelineOp.w(mb, chunk));
                return PipelineOp.bi(mb, chunk);
            }
            return PipelineOp.b(mb, chunk);
        }

        private void weight() {
            PipelineOp.Action w = deferredW.poll();
            if (w == null) {
                throw new IllegalStateException(name() + ": rank " + rank + " has no deferred W to run");
            }
            out.add(w);
        }

        private void pair(int forwardChunk, int backwardChunk) {
            PipelineOp.Action f = forward(forwardChunk);
            out.add(new PipelineOp.Overlapped(f, backward(backwardChunk, false)));
        }

        List<PipelineOp> build() {
            int half = vShape ? ranks : ranks / 2;
            int h = vShape ? rank : Math.min(rank, ranks - 1 - rank);
            int chunksPerDirection = vShape ? microbatches : microbatches / 2;
            boolean middle = vShape ? rank == ranks - 1 : (rank == ranks / 2 - 1 || rank == ranks / 2);

            for (int i = 0; i < (half - h - 1) * 2; i++) {
                out.add(forward(0));
            }
            for (int i = 0; i < h + 1; i++) {
                out.add(forward(0));
                out.add(forward(1));
            }
            for (int i = 0; i < half - h - 1; i++) {
                out.add(backward(1, true));
                weight();
                out.add(forward(1));
            }
            int steady = chunksPerDirection - 2 * half + h + 1;
            for (int i = 0; i < steady; i++) {
                if (i == 0 && middle) {
                    out.add(forward(0));
                    out.add(backward(1, false));
                } else {
                    pair(0, 1);
                }
                pair(1, 0);
            }
            for (int i = 0; i < half - h - 1; i++) {
                out.add(backward(1, false));
                pair(1, 0);
            }
            boolean split = false;
            int drain = h + 1;
            for (int i = 0; i < drain; i++) {
                if (i == drain / 2 && h % 2 == 1) {
                    split = true;
                }
                out.add(backward(1, split));
                if (i == drain / 2 && h % 2 == 0) {
                    split = true;
                }
                out.add(backward(0, split));
            }
            for (int i = 0; i < half - h - 1; i++) {
                weight();
                out.add(backward(0, true));
            }
            for (int i = 0; i < h + 1; i++) {
                weight();
            }
            if (!deferredW.isEmpty()) {
                throw new IllegalStateException(name() + ": rank " + rank + " ends with deferred W passes");
            }
            return out;
        }
    }
}
