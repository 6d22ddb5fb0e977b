package org.clustersim.strategies.pipeline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * The handcrafted zero-bubble schedules ZB-H1 and ZB-H2 (Qi et al., "Zero Bubble Pipeline
 * Parallelism", arXiv 2401.10241, section 3): the backward is split into the input gradient
 * (Bi), which the previous stage waits for, and the weight gradient (W), which nobody waits
 * for and which therefore fills what would otherwise be bubbles.
 *
 * <p>ZB-H1 keeps 1F1B's warm-up (p - r - 1 forwards on rank r) and its one-forward,
 * one-backward rhythm, but rank r runs the W of microbatch k - r after the Bi of microbatch
 * k: the later a stage, the further its W passes are deferred, which fills the cool-down
 * bubbles while no rank holds more than p microbatches of activations (1F1B's peak).
 *
 * <p>ZB-H2 is built as the paper builds it, for equal F, Bi and W: a list scheduler plays
 * the pipeline in unit time and, whenever a rank is free, runs a ready Bi first, else a
 * forward if the rank's live activations stay within 2p - 1 microbatches, else the oldest
 * pending W. The extra warm-up forwards fill the bubble before the first backward.
 *
 * <p>Either way the per-rank order is the schedule; the engine runs it with the real costs,
 * so with unequal F, Bi, W the timeline shows how the handcrafted order fares.
 */
public final class ZeroBubbleSchedule implements PipelineSchedule {
    /** Which handcrafted variant. */
    public enum Variant {
        H1("zb-h1"),
        H2("zb-h2");

        private final String id;

        Variant(String id) {
            this.id = id;
        }
    }

    private final Variant variant;

    public ZeroBubbleSchedule(Variant variant) {
        this.variant = variant;
    }

    @Override
    public String name() {
        return variant.id;
    }


    @Override
    public StagePlacement placement(int ranks, int microbatches) {
        return StagePlacement.linear(ranks);
    }

    /** ZB-H2's live-activation limit per rank, in microbatches. */
    static int memoryLimit(int ranks) {
        return 2 * ranks - 1;
    }

    @Override
    public List<PipelineOp> program(int rank, int ranks, int microbatches) {
        return variant == Variant.H1 ? h1(rank, ranks, microbatches) : planned(ranks, microbatches).get(rank);
    }

    /** ZB-H1: 1F1B order with Bi in place of B, and rank r's W of microbatch k - r right after Bi of k. */
    static List<PipelineOp> h1(int rank, int ranks, int microbatches) {
        int warmup = Math.min(ranks - rank - 1, microbatches);
        List<PipelineOp> out = new ArrayList<>(3 * microbatches);
        int nextW = 0;
        for (int i = 0; i < warmup; i++) {
            out.add(PipelineOp.f(i, 0));
        }
        for (int k = 0; k < microbatches; k++) {
            if (warmup + k < microbatches) {
                out.add(PipelineOp.f(warmup + k, 0));
            }
            out.add(PipelineOp.bi(k, 0));
            if (k - rank >= 0) {
                out.add(PipelineOp.w(nextW++, 0));
            }
        }
        while (nextW < microbatches) {
            out.add(PipelineOp.w(nextW++, 0));
        }
        return out;
    }

    /**
     * ZB-H2's programs, played once per (p, m) for every rank and kept: each rank's program is a
     * row of the same play, and a plan's screening asks for thousands of them.
     */
    private static List<List<PipelineOp>> planned(int p, int m) {
        long key = (long) p << 32 | m;
        List<List<PipelineOp>> programs = PLANS.get(key);
        if (programs == null) {
            List<List<PipelineOp>> played = new ArrayList<>();
            for (List<PipelineOp> rank : new ZeroBubbleSchedule(Variant.H2).plan(p, m)) {
                played.add(List.copyOf(rank));
            }
            programs = List.copyOf(played);
            if (PLANS.size() > 32) {
                PLANS.clear(); // a long play holds megabytes: keep a few shapes
            }
            PLANS.put(key, programs);
        }
        return programs;
    }

    /** ZB-H2's plays by (p, m). */
    private static final java.util.Map<Long, List<List<PipelineOp>>> PLANS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** ZB-H2's list scheduler, played for all ranks at once (unit F, Bi, W; free communication). */
    List<List<PipelineOp>> plan(int p, int m) {
        int limit = memoryLimit(p);
        long never = Long.MAX_VALUE;
        long[][] actReady = new long[p][m];
        long[][] gradReady = new long[p][m];
        for (long[] a : actReady) {
            Arrays.fill(a, never);
        }
        for (long[] g : gradReady) {
            Arrays.fill(g, never);
        }
        Arrays.fill(actReady[0], 0);
        long[] free = new long[p];
        int[] nextF = new int[p];
        int[] nextB = new int[p];
        int[] live = new int[p];
        long[][] fDone = new long[p][m];
        List<Deque<Integer>> pendingW = new ArrayList<>();
        List<List<PipelineOp>> programs = new ArrayList<>();
        for (int r = 0; r < p; r++) {
            pendingW.add(new ArrayDeque<>());
            programs.add(new ArrayList<>());
            Arrays.fill(fDone[r], never);
        }
        Arrays.fill(gradReady[p - 1], never);
        int remaining = 3 * p * m;
        long t = 0;
        long horizon = 4L * (3L * p * m + 2L * p);
        while (remaining > 0) {
            if (t > horizon) {
                throw new IllegalStateException(name() + " list scheduler made no progress for p=" + p + " m=" + m);
            }
            for (int r = 0; r < p; r++) {
                if (free[r] > t) {
                    continue;
                }
                int b = nextB[r];
                boolean biReady = b < m && fDone[r][b] <= t && (r == p - 1 || gradReady[r][b] <= t);
                int f = nextF[r];
                boolean fReady = f < m && actReady[r][f] <= t && live[r] < limit;
                if (biReady) {
                    programs.get(r).add(PipelineOp.bi(b, 0));
                    pendingW.get(r).add(b);
                    if (r > 0) {
                        gradReady[r - 1][b] = t + 1;
                    }
                    nextB[r]++;
                } else if (fReady) {
                    programs.get(r).add(PipelineOp.f(f, 0));
                    fDone[r][f] = t + 1;
                    if (r + 1 < p) {
                        actReady[r + 1][f] = t + 1;
                    }
                    live[r]++;
                    nextF[r]++;
                } else if (!pendingW.get(r).isEmpty()) {
                    programs.get(r).add(PipelineOp.w(pendingW.get(r).poll(), 0));
                    live[r]--;
                } else {
                    continue;
                }
                free[r] = t + 1;
                remaining--;
            }
            t++;
        }
        return programs;
    }
}
