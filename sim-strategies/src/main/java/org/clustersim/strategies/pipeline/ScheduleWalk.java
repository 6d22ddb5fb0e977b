package org.clustersim.strategies.pipeline;


/**
 * A pipeline schedule's timeline computed directly from its rank programs, without a task graph:
 * each rank runs its program in order, an action starts when the rank is free and its inputs have
 * arrived, and each output crosses to the next rank as a send on the channel between the two
 * ranks in that direction, one send at a time. These are the rules {@link PipelineProgram}'s tasks
 * follow in the simulation; here every action and send simply takes its given time, so a step of
 * m microbatches on p ranks costs O(p m v) arithmetic. A plan screens its layouts with it.
 */
public final class ScheduleWalk {
    private ScheduleWalk() {
    }

    /** Times of a pipeline's actions and sends. */
    public interface Costs {
        /** An action of {@code kind} on stage {@code stage} (run by {@code rank}). */
        long actionNs(int rank, int stage, ActionKind kind);

        /** DualPipe's overlapped pair on {@code rank}: forward of one stage with the backward of another. */
        long pairNs(int rank, int forwardStage, int backwardStage);

        /** One stage boundary's send from rank {@code from} to rank {@code to}. */
        long sendNs(int from, int to);
    }

    /**
     * The walk's outcome.
     *
     * @param rankEndNs      when each rank's last action ends
     * @param gradientsStart per stage, when its last gradient-completing action (full backward or W) started
     * @param gradientsEnd   per stage, when that action ended
     */
    public record Result(long[] rankEndNs, long[] gradientsStart, long[] gradientsEnd) {
        /** The latest end over the ranks. */
        public long endNs() {
            long end = 0;
            for (long e : rankEndNs) {
                end = Math.max(end, e);
            }
            return end;
        }
    }

    /**
     * Walks {@code schedule} on {@code ranks} ranks and {@code microbatches} microbatches.
     *
     * @param blockingSends a rank does not start its next action before the previous one's sends end
     * @throws IllegalStateException if the programs wait on each other in a cycle
     */
    public static Result walk(PipelineSchedule schedule, int ranks, int microbatches, Costs costs,
                              boolean blockingSends) {
        return walk(RankPrograms.of(schedule, ranks, microbatches), costs, blockingSends);
    }

    /** {@link #walk(PipelineSchedule, int, int, Costs, boolean)} of programs already made. */
    public static Result walk(RankPrograms programs, Costs costs, boolean blockingSends) {
        int ranks = programs.ranks();
        int stages = programs.stages();
        int cells = programs.microbatches() * stages;
        long[] fEnd = filled(cells);
        long[] bEnd = filled(cells);
        long[] fIn = filled(cells);   // the forward input's arrival at the stage
        long[] bIn = filled(cells);   // the output gradient's arrival at the stage
        long[][] channel = new long[ranks][ranks];
        long[] free = new long[ranks];
        long[] gStart = new long[stages];
        long[] gEnd = new long[stages];
        // an action's time by stage and kind, asked once
        long[][] ns = new long[stages][ActionKind.values().length];
        for (long[] row : ns) {
            java.util.Arrays.fill(row, -1);
        }
        int[] at = new int[ranks];
        int left = 0;
        for (int r = 0; r < ranks; r++) {
            left += programs.kind[r].length;
        }
        int forward = ActionKind.FORWARD.ordinal();
        while (left > 0) {
            boolean progressed = false;
            for (int r = 0; r < ranks; r++) {
                int[] kinds = programs.kind[r];
                int[] stg = programs.stage[r];
                int[] mbs = programs.microbatch[r];
                while (at[r] < kinds.length) {
                    int i = at[r];
                    int kind = kinds[i];
                    int k = stg[i];
                    int cell = mbs[i] * stages + k;
                    long ready;
                    long time;
                    if (kind != RankPrograms.PAIR) {
                        ready = inputs(kind, k, stages, cell, fEnd, bEnd, fIn, bIn);
                        if (ready < 0) {
                            break;
                        }
                        if (ns[k][kind] < 0) {
                            ns[k][kind] = costs.actionNs(r, k, ActionKind.values()[kind]);
                        }
                        time = ns[k][kind];
                    } else {
                        int bk = programs.stage2[r][i];
                        int bcell = programs.microbatch2[r][i] * stages + bk;
                        long f = inputs(forward, k, stages, cell, fEnd, bEnd, fIn, bIn);
                        long b = f < 0 ? -1 : inputs(ActionKind.BACKWARD.ordinal(), bk, stages, bcell, fEnd, bEnd,
                                fIn, bIn);
                        if (b < 0) {
                            break;
                        }
                        ready = Math.max(f, b);
                        time = costs.pairNs(r, k, bk);
                    }
                    long start = Math.max(free[r], ready);
                    long end = start + time;
                    long sent;
                    if (kind != RankPrograms.PAIR) {
                        sent = finish(kind, k, cell, end, start, r, stages, programs, costs, fEnd, bEnd, fIn, bIn,
                                channel, gStart, gEnd);
                    } else {
                        int bk = programs.stage2[r][i];
                        int bcell = programs.microbatch2[r][i] * stages + bk;
                        sent = Math.max(finish(forward, k, cell, end, start, r, stages, programs, costs, fEnd, bEnd,
                                fIn, bIn, channel, gStart, gEnd), finish(ActionKind.BACKWARD.ordinal(), bk, bcell, end,
                                start, r, stages, programs, costs, fEnd, bEnd, fIn, bIn, channel, gStart, gEnd));
                    }
                    free[r] = blockingSends ? Math.max(end, sent) : end;
                    at[r]++;
                    left--;
                    progressed = true;
                }
            }
            if (!progressed) {
                throw new IllegalStateException("the rank programs wait on each other: " + left + " actions never start");
            }
        }
        return new Result(free, gStart, gEnd);
    }

    private static long[] filled(int n) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, -1);
        return a;
    }

    /** When an action's inputs are there, -1 while one is missing. */
    private static long inputs(int kind, int k, int stages, int cell, long[] fEnd, long[] bEnd, long[] fIn,
                               long[] bIn) {
        if (kind == FORWARD) {
            return k == 0 ? 0 : fIn[cell];
        }
        if (kind == BACKWARD || kind == BACKWARD_INPUT) {
            if (fEnd[cell] < 0) {
                return -1;
            }
            return k == stages - 1 ? fEnd[cell] : bIn[cell] < 0 ? -1 : Math.max(fEnd[cell], bIn[cell]);
        }
        return bEnd[cell];
    }

    private static final int FORWARD = ActionKind.FORWARD.ordinal();
    private static final int BACKWARD = ActionKind.BACKWARD.ordinal();
    private static final int BACKWARD_INPUT = ActionKind.BACKWARD_INPUT.ordinal();

    /** Records an action's end and sends its output on; returns when its sends arrive. */
    private static long finish(int kind, int k, int cell, long end, long start, int r, int stages,
                               RankPrograms programs, Costs costs, long[] fEnd, long[] bEnd, long[] fIn,
                               long[] bIn, long[][] channel, long[] gStart, long[] gEnd) {
        if (kind == FORWARD) {
            fEnd[cell] = end;
            return k + 1 < stages ? send(r, programs.rankOf[cell + 1], end, costs, channel, fIn, cell + 1) : end;
        }
        if (kind == BACKWARD || kind == BACKWARD_INPUT) {
            bEnd[cell] = end;
            if (kind == BACKWARD) {
                gStart[k] = start;
                gEnd[k] = end;
            }
            return k > 0 ? send(r, programs.rankOf[cell - 1], end, costs, channel, bIn, cell - 1) : end;
        }
        gStart[k] = start;
        gEnd[k] = end;
        return end;
    }

    private static long send(int from, int to, long ready, Costs costs, long[][] channel, long[] arrive, int cell) {
        if (from == to) {
            arrive[cell] = ready;
            return ready;
        }
        long start = Math.max(ready, channel[from][to]);
        long end = start + costs.sendNs(from, to);
        channel[from][to] = end;
        arrive[cell] = end;
        return end;
    }
}
