package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;

/**
 * Turns a pipeline schedule into tasks. Each rank's program becomes compute tasks on its
 * compute stream, in program order. Data dependencies follow each microbatch's path through
 * the stages: a forward needs the previous stage's forward output, a backward (full or
 * input-only) needs its own forward and the next stage's input gradient, a W needs its Bi.
 * Where consecutive stages sit on different ranks the output travels as a send.
 *
 * <p>A send occupies a send stream of the sender and the matching receive stream of the
 * receiver (one pair per neighbour and direction), so sends between two ranks in one
 * direction are serialised as over one NCCL channel. Sends are queued in the order the
 * sender produces their data; receives are posted ahead of time, so a transfer starts as soon
 * as its data exists and the channel is free, and the consuming task waits for it.
 */
public final class PipelineProgram {
    /** Trace category of stage-to-stage sends. */
    public static final String P2P_CATEGORY = "pp-p2p";

    private final PipelineSchedule schedule;
    private final int ranks;
    private final int microbatches;
    private final PipelineCosts costs;
    private final long boundaryBytes;
    private final StagePlacement placement;

    /**
     * @param schedule      the rank programs
     * @param ranks         pipeline ranks p
     * @param microbatches  microbatches per step m
     * @param costs         cost of every stage on its rank
     * @param boundaryBytes bytes sent across each stage boundary per microbatch, each way
     * @throws IllegalArgumentException if the schedule rejects (p, m)
     */
    public PipelineProgram(PipelineSchedule schedule, int ranks, int microbatches, PipelineCosts costs,
                           long boundaryBytes) {
        schedule.validate(ranks, microbatches);
        this.schedule = schedule;
        this.ranks = ranks;
        this.microbatches = microbatches;
        this.costs = costs;
        this.boundaryBytes = boundaryBytes;
        this.placement = schedule.placement(ranks, microbatches);
    }

    public StagePlacement placement() {
        return placement;
    }

    /**
     * Adds the pipeline's tasks to {@code graph}.
     *
     * @param rankDevice device index of each rank, as already declared in the graph builder
     * @return which tasks hold and free activations, for measuring memory from the timeline
     */
    public PipelineTasks addTo(TaskGraph.Builder graph, int[] rankDevice) {
        if (rankDevice.length != ranks) {
            throw new IllegalArgumentException(ranks + " ranks but " + rankDevice.length + " devices");
        }
        int stages = placement.stages();
        int[][] fwd = filled(microbatches, stages);
        int[][] bIn = filled(microbatches, stages);
        int[][] bW = filled(microbatches, stages);
        List<List<PipelineOp>> programs = new ArrayList<>(ranks);
        List<PipelineTasks.Entry> ledger = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            List<PipelineOp> program = schedule.program(r, ranks, microbatches);
            programs.add(program);
            int compute = graph.stream(rankDevice[r], "compute", StreamKind.COMPUTE);
            for (PipelineOp op : program) {
                if (op instanceof PipelineOp.Action a) {
                    int stage = stageOf(r, a);
                    ChunkCost c = costs.of(r, stage);
                    int id = switch (a.kind()) {
                        case FORWARD -> graph.compute(label(a), a.kind().category(), compute, c.forwardNs(),
                                c.forwardFlops());
                        case BACKWARD -> graph.compute(label(a), a.kind().category(), compute, c.backwardNs(),
                                c.backwardFlops());
                        case BACKWARD_INPUT -> graph.compute(label(a), a.kind().category(), compute,
                                c.backwardInputNs(), c.backwardInputFlops());
                        case BACKWARD_WEIGHT -> graph.compute(label(a), a.kind().category(), compute,
                                c.backwardWeightNs(), c.backwardWeightFlops());
                    };
                    record(r, a, stage, id, fwd, bIn, bW, ledger);
                } else if (op instanceof PipelineOp.Overlapped pair) {
                    int fs = stageOf(r, pair.forward());
                    int bs = stageOf(r, pair.backward());
                    ChunkCost cf = costs.of(r, fs);
                    ChunkCost cb = costs.of(r, bs);
                    int id = graph.compute(label(pair.forward()) + " & " + label(pair.backward()), "overlapped",
                            compute, costs.overlappedNs(r, fs, bs), cf.forwardFlops() + cb.backwardFlops());
                    record(r, pair.forward(), fs, id, fwd, bIn, bW, ledger);
                    record(r, pair.backward(), bs, id, fwd, bIn, bW, ledger);
                }
            }
        }
        checkCovered(fwd, bIn, bW);
        for (int mb = 0; mb < microbatches; mb++) {
            for (int k = 0; k < stages; k++) {
                if (bIn[mb][k] != fwd[mb][k]) {
                    graph.addDependency(bIn[mb][k], fwd[mb][k]);
                }
                if (bW[mb][k] != bIn[mb][k]) {
                    graph.addDependency(bW[mb][k], bIn[mb][k]);
                }
            }
        }
        for (int r = 0; r < ranks; r++) {
            for (PipelineOp op : programs.get(r)) {
                for (PipelineOp.Action a : actions(op)) {
                    connect(graph, rankDevice, r, a, fwd, bIn);
                }
            }
        }
        return new PipelineTasks(ranks, placement.chunkShare(), ledger);
    }

    /** Adds the data dependencies that leave the stage of {@code a}: same-rank edges or sends. */
    private void connect(TaskGraph.Builder graph, int[] rankDevice, int r, PipelineOp.Action a, int[][] fwd,
                         int[][] bIn) {
        int mb = a.microbatch();
        int k = stageOf(r, a);
        int target;
        int producer;
        int consumer;
        String what;
        if (a.kind() == ActionKind.FORWARD) {
            if (k + 1 >= placement.stages()) {
                return;
            }
            target = k + 1;
            producer = fwd[mb][k];
            consumer = fwd[mb][target];
            what = "act";
        } else if (a.kind() == ActionKind.BACKWARD || a.kind() == ActionKind.BACKWARD_INPUT) {
            if (k == 0) {
                return;
            }
            target = k - 1;
            producer = bIn[mb][k];
            consumer = bIn[mb][target];
            what = "grad";
        } else {
            return;
        }
        int q = placement.rank(mb, target);
        if (q == r) {
            graph.addDependency(consumer, producer);
            return;
        }
        int send = graph.stream(rankDevice[r], sendStream(r, q), StreamKind.COMMUNICATION);
        int recv = graph.stream(rankDevice[q], recvStream(q, r), StreamKind.COMMUNICATION);
        int t = graph.communicate(what + " mb" + mb + " s" + k + "->s" + target, P2P_CATEGORY, new int[] {send, recv},
                Work.Communication.pointToPoint(rankDevice[r], rankDevice[q], boundaryBytes), producer);
        graph.addDependency(consumer, t);
    }

    private static String sendStream(int from, int to) {
        return to == from + 1 ? "pp-send-next" : to == from - 1 ? "pp-send-prev" : "pp-send-to-" + to;
    }

    private static String recvStream(int at, int from) {
        return from == at - 1 ? "pp-recv-prev" : from == at + 1 ? "pp-recv-next" : "pp-recv-from-" + from;
    }

    private void record(int rank, PipelineOp.Action a, int stage, int id, int[][] fwd, int[][] bIn, int[][] bW,
                        List<PipelineTasks.Entry> ledger) {
        int mb = a.microbatch();
        switch (a.kind()) {
            case FORWARD -> {
                once(fwd, mb, stage, id, rank, a);
                ledger.add(new PipelineTasks.Entry(rank, id, true));
            }
            case BACKWARD -> {
                once(bIn, mb, stage, id, rank, a);
                once(bW, mb, stage, id, rank, a);
                ledger.add(new PipelineTasks.Entry(rank, id, false));
            }
            case BACKWARD_INPUT -> once(bIn, mb, stage, id, rank, a);
            case BACKWARD_WEIGHT -> {
                once(bW, mb, stage, id, rank, a);
                ledger.add(new PipelineTasks.Entry(rank, id, false));
            }
        }
    }

    private void once(int[][] slot, int mb, int stage, int id, int rank, PipelineOp.Action a) {
        if (slot[mb][stage] >= 0) {
            throw new IllegalStateException(schedule.name() + ": rank " + rank + " runs " + a + " twice");
        }
        slot[mb][stage] = id;
    }

    private int stageOf(int rank, PipelineOp.Action a) {
        if (a.microbatch() < 0 || a.microbatch() >= microbatches || a.chunk() < 0
                || a.chunk() >= placement.chunksPerRank()) {
            throw new IllegalStateException(schedule.name() + ": rank " + rank + " runs " + a
                    + " outside microbatches 0.." + (microbatches - 1) + " / chunks 0.."
                    + (placement.chunksPerRank() - 1));
        }
        return placement.stage(rank, a.chunk(), a.microbatch());
    }

    private void checkCovered(int[][] fwd, int[][] bIn, int[][] bW) {
        for (int mb = 0; mb < microbatches; mb++) {
            for (int k = 0; k < placement.stages(); k++) {
                String missing = fwd[mb][k] < 0 ? "forward" : bIn[mb][k] < 0 ? "backward" : bW[mb][k] < 0
                        ? "weight gradient" : null;
                if (missing != null) {
                    throw new IllegalStateException(schedule.name() + ": no rank runs the " + missing
                            + " of microbatch " + mb + " at stage " + k + " (rank " + placement.rank(mb, k) + ")");
                }
            }
        }
    }

    private String label(PipelineOp.Action a) {
        String kind = a.kind() == ActionKind.BACKWARD_INPUT ? "Bi" : String.valueOf(a.kind().letter());
        return kind + " mb" + a.microbatch() + (placement.chunksPerRank() > 1 ? " c" + a.chunk() : "");
    }

    private static List<PipelineOp.Action> actions(PipelineOp op) {
        if (op instanceof PipelineOp.Action a) {
            return List.of(a);
        }
        PipelineOp.Overlapped pair = (PipelineOp.Overlapped) op;
        return List.of(pair.forward(), pair.backward());
    }

    private static int[][] filled(int rows, int cols) {
        int[][] a = new int[rows][cols];
        for (int[] row : a) {
            Arrays.fill(row, -1);
        }
        return a;
    }
}
