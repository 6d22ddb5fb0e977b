package org.clustersim.strategies.pipeline;

import java.util.List;

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
        List<List<PipelineOp>> programs = new java.util.ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            programs.add(schedule.program(r, ranks, microbatches));
        }
        return walk(schedule, programs, microbatches, costs, blockingSends);
    }

    /** {@link #walk(PipelineSchedule, int, int, Costs, boolean)} of the rank programs already made. */
    public static Result walk(PipelineSchedule schedule, List<List<PipelineOp>> rankPrograms, int microbatches,
                              Costs costs, boolean blockingSends) {
        int ranks = rankPrograms.size();
        StagePlacement placement = schedule.placement(ranks, microbatches);
        int stages = placement.stages();
        int cells = microbatches * stages;
        long[] fEnd = filled(cells);
        long[] bEnd = filled(cells);
        long[] fIn = filled(cells);   // the forward input's arrival at the stage
        long[] bIn = filled(cells);   // the output gradient's arrival at the stage
        long[][] channel = new long[ranks][ranks];
        long[] free = new long[ranks];
        long[] gStart = new long[stages];
        long[] gEnd = new long[stages];
        @SuppressWarnings("unchecked")
        List<PipelineOp>[] programs = new List[ranks];
        int[] at = new int[ranks];
        int left = 0;
        for (int r = 0; r < ranks; r++) {
            programs[r] = rankPrograms.get(r);
            left += programs[r].size();
        }
        while (left > 0) {
            boolean progressed = false;
            for (int r = 0; r < ranks; r++) {
                while (at[r] < programs[r].size()) {
                    PipelineOp op = programs[r].get(at[r]);
                    long ready;
                    long ns;
                    if (op instanceof PipelineOp.Action a) {
                        int k = placement.stage(r, a.chunk(), a.microbatch());
                        ready = inputs(a, k, stages, a.microbatch() * stages + k, fEnd, bEnd, fIn, bIn);
                        ns = ready < 0 ? 0 : costs.actionNs(r, k, a.kind());
                    } else {
                        PipelineOp.Overlapped pair = (PipelineOp.Overlapped) op;
                        int fk = placement.stage(r, pair.forward().chunk(), pair.forward().microbatch());
                        int bk = placement.stage(r, pair.backward().chunk(), pair.backward().microbatch());
                        long f = inputs(pair.forward(), fk, stages, pair.forward().microbatch() * stages + fk, fEnd,
                                bEnd, fIn, bIn);
                        long b = inputs(pair.backward(), bk, stages, pair.backward().microbatch() * stages + bk,
                                fEnd, bEnd, fIn, bIn);
                        ready = f < 0 || b < 0 ? -1 : Math.max(f, b);
                        ns = ready < 0 ? 0 : costs.pairNs(r, fk, bk);
                    }
                    if (ready < 0) {
                        break;
                    }
                    long start = Math.max(free[r], ready);
                    long end = start + ns;
                    long sent = end;
                    for (PipelineOp.Action a : op instanceof PipelineOp.Overlapped o
                            ? List.of(o.forward(), o.backward()) : List.of((PipelineOp.Action) op)) {
                        int k = placement.stage(r, a.chunk(), a.microbatch());
                        int cell = a.microbatch() * stages + k;
                        sent = Math.max(sent, finish(a, k, cell, end, start, r, stages, placement, costs, fEnd, bEnd,
                                fIn, bIn, channel, gStart, gEnd));
                    }
                    free[r] = blockingSends ? sent : end;
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
    private static long inputs(PipelineOp.Action a, int k, int stages, int cell, long[] fEnd, long[] bEnd,
                               long[] fIn, long[] bIn) {
        switch (a.kind()) {
            case FORWARD:
                return k == 0 ? 0 : fIn[cell];
            case BACKWARD:
            case BACKWARD_INPUT:
                if (fEnd[cell] < 0) {
                    return -1;
                }
                return k == stages - 1 ? fEnd[cell] : bIn[cell] < 0 ? -1 : Math.max(fEnd[cell], bIn[cell]);
            default:
                return bEnd[cell];
        }
    }

    /** Records an action's end and sends its output on; returns when its sends arrive. */
    private static long finish(PipelineOp.Action a, int k, int cell, long end, long start, int r, int stages,
                               StagePlacement placement, Costs costs, long[] fEnd, long[] bEnd, long[] fIn,
                               long[] bIn, long[][] channel, long[] gStart, long[] gEnd) {
        int mb = a.microbatch();
        switch (a.kind()) {
            case FORWARD:
                fEnd[cell] = end;
                if (k + 1 < stages) {
                    return send(r, placement.rank(mb, k + 1), end, costs, channel, fIn, cell + 1);
                }
                return end;
            case BACKWARD:
            case BACKWARD_INPUT:
                bEnd[cell] = end;
                if (a.kind() == ActionKind.BACKWARD) {
                    gStart[k] = start;
                    gEnd[k] = end;
                }
                if (k > 0) {
                    return send(r, placement.rank(mb, k - 1), end, costs, channel, bIn, cell - 1);
                }
                return end;
            default:
                gStart[k] = start;
                gEnd[k] = end;
                return end;
        }
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
