package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * A schedule's rank programs for p ranks and m microbatches in flat arrays: each op's kind, stage
 * and microbatch (two of each for DualPipe's overlapped pairs) and the rank its output goes to,
 * and each distinct action (stage and kind, or pair of stages) with the rank that first runs it.
 * Made once per schedule, p and m and shared by every step with that pipeline shape: walking a
 * program ({@link ScheduleWalk}) then costs array reads, not the schedule's own construction.
 */
public final class RankPrograms {
    /** Kind code of an overlapped pair in {@link #kind}. */
    public static final int PAIR = -1;

    private final int ranks;
    private final int microbatches;
    private final int stages;
    private final List<List<PipelineOp>> programs;
    /** Per rank, per op: the action kind's ordinal (PAIR for a pair, then the forward's fields in the first slots). */
    final int[][] kind;
    final int[][] stage;
    final int[][] microbatch;
    /** For a pair: the backward half's stage and microbatch. */
    final int[][] stage2;
    final int[][] microbatch2;
    /** Per microbatch x stages + stage: the rank that runs it. */
    final int[] rankOf;
    private final List<Distinct> distinct;

    /**
     * An action the programs run, the first time they run it.
     *
     * @param rank the rank running it first
     * @param op   the op (an action, or an overlapped pair)
     * @param stage the action's stage (a pair: its forward's)
     * @param backwardStage a pair's backward stage, else -1
     */
    public record Distinct(int rank, PipelineOp op, int stage, int backwardStage) {
    }

    private RankPrograms(PipelineSchedule schedule, int ranks, int microbatches) {
        this.ranks = ranks;
        this.microbatches = microbatches;
        StagePlacement placement = schedule.placement(ranks, microbatches);
        this.stages = placement.stages();
        this.programs = new ArrayList<>(ranks);
        kind = new int[ranks][];
        stage = new int[ranks][];
        microbatch = new int[ranks][];
        stage2 = new int[ranks][];
        microbatch2 = new int[ranks][];
        distinct = new ArrayList<>();
        boolean[][] seen = new boolean[stages][ActionKind.values().length];
        java.util.Set<Long> seenPairs = new java.util.HashSet<>();
        for (int r = 0; r < ranks; r++) {
            List<PipelineOp> program = List.copyOf(schedule.program(r, ranks, microbatches));
            programs.add(program);
            int n = program.size();
            kind[r] = new int[n];
            stage[r] = new int[n];
            microbatch[r] = new int[n];
            stage2[r] = new int[n];
            microbatch2[r] = new int[n];
            for (int i = 0; i < n; i++) {
                PipelineOp op = program.get(i);
                if (op instanceof PipelineOp.Action a) {
                    int k = placement.stage(r, a.chunk(), a.microbatch());
                    kind[r][i] = a.kind().ordinal();
                    stage[r][i] = k;
                    microbatch[r][i] = a.microbatch();
                    if (!seen[k][a.kind().ordinal()]) {
                        seen[k][a.kind().ordinal()] = true;
                        distinct.add(new Distinct(r, op, k, -1));
                    }
                } else {
                    PipelineOp.Overlapped pair = (PipelineOp.Overlapped) op;
                    int f = placement.stage(r, pair.forward().chunk(), pair.forward().microbatch());
                    int b = placement.stage(r, pair.backward().chunk(), pair.backward().microbatch());
                    kind[r][i] = PAIR;
                    stage[r][i] = f;
                    microbatch[r][i] = pair.forward().microbatch();
                    stage2[r][i] = b;
                    microbatch2[r][i] = pair.backward().microbatch();
                    if (seenPairs.add((long) f * stages + b)) {
                        distinct.add(new Distinct(r, op, f, b));
                    }
                }
            }
        }
        rankOf = new int[microbatches * stages];
        for (int mb = 0; mb < microbatches; mb++) {
            for (int k = 0; k < stages; k++) {
                rankOf[mb * stages + k] = placement.rank(mb, k);
            }
        }
    }

    /**
     * The shapes made last, at most {@link #KEPT} (a plan screens its layouts in an order that
     * changes the pipeline's shape slowly; a long program holds megabytes, so few are kept).
     */
    private static final java.util.Map<List<Object>, RankPrograms> MADE = new java.util.LinkedHashMap<>(16, 0.75f,
            true);
    private static final int KEPT = 48;

    /**
     * The programs of {@code schedule} on {@code ranks} ranks and {@code microbatches} microbatches,
     * made once per schedule name, chunk count and shape.
     *
     * @throws IllegalArgumentException if the schedule cannot run that shape
     */
    public static RankPrograms of(PipelineSchedule schedule, int ranks, int microbatches) {
        List<Object> key = List.of(schedule.getClass(), schedule.name(),
                schedule.placement(ranks, microbatches).stages(), ranks, microbatches);
        synchronized (MADE) {
            RankPrograms p = MADE.get(key);
            if (p != null) {
                return p;
            }
        }
        schedule.validate(ranks, microbatches);
        RankPrograms p = new RankPrograms(schedule, ranks, microbatches);
        synchronized (MADE) {
            MADE.put(key, p);
            if (MADE.size() > KEPT) {
                MADE.remove(MADE.keySet().iterator().next());
            }
        }
        return p;
    }

    public int ranks() {
        return ranks;
    }

    public int microbatches() {
        return microbatches;
    }

    public int stages() {
        return stages;
    }

    /** Rank {@code r}'s program as the schedule gives it. */
    public List<PipelineOp> program(int r) {
        return programs.get(r);
    }

    /**
     * The most bytes rank {@code rank} holds at once when each stage's forward makes
     * {@code stageBytes[stage]} live and its full backward (or W) frees them, walking the
     * program in order (a pair: its forward, then its backward).
     */
    public long activationPeak(int rank, long[] stageBytes) {
        int[] kinds = kind[rank];
        long live = 0;
        long peak = 0;
        int forward = ActionKind.FORWARD.ordinal();
        int input = ActionKind.BACKWARD_INPUT.ordinal();
        for (int i = 0; i < kinds.length; i++) {
            int k = kinds[i];
            if (k == PAIR) {
                live += stageBytes[stage[rank][i]];
                peak = Math.max(peak, live);
                live -= stageBytes[stage2[rank][i]];
            } else if (k == forward) {
                live += stageBytes[stage[rank][i]];
                peak = Math.max(peak, live);
            } else if (k != input) {
                live -= stageBytes[stage[rank][i]];
            }
        }
        return peak;
    }

    /** Each distinct action, the first time the programs (rank by rank) run it. */
    public List<Distinct> distinct() {
        return distinct;
    }
}
