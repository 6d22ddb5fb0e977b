package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
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
    private final PipelineSchedule schedule;
    private final int ranks;
    private final int microbatches;
    private final StageWork work;
    private final long boundaryBytes;
    private final StagePlacement placement;
    private final boolean blockingSends;
    /**
     * One work per (sender, receiver, bytes), shared by every microbatch's send between them as a
     * collective's plan is shared by every layer: a 16,384-GPU step has half a million sends but a
     * few thousand distinct ones, and the network memoises routes per plan.
     */
    private final Map<Send, Work.Communication> sends = new HashMap<>();

    private record Send(int from, int to, long bytes) {
    }

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
        this(schedule, ranks, microbatches, new SimpleStageWork(costs), boundaryBytes);
    }

    /**
     * @param work          how each action becomes tasks
     * @param boundaryBytes bytes sent across each stage boundary per microbatch, each way; split
     *                      evenly over the devices of a rank (Megatron's scatter/gather)
     */
    public PipelineProgram(PipelineSchedule schedule, int ranks, int microbatches, StageWork work,
                           long boundaryBytes) {
        this(schedule, ranks, microbatches, work, boundaryBytes, false);
    }

    /**
     * @param blockingSends if true, a rank does not start its next action until the sends of
     *                      the previous one have completed (synchronous point-to-point, as in
     *                      Megatron-LM's 2021 schedules); otherwise sends overlap later compute
     */
    public PipelineProgram(PipelineSchedule schedule, int ranks, int microbatches, StageWork work,
                           long boundaryBytes, boolean blockingSends) {
        this.blockingSends = blockingSends;
        schedule.validate(ranks, microbatches);
        this.schedule = schedule;
        this.ranks = ranks;
        this.microbatches = microbatches;
        this.work = work;
        this.boundaryBytes = boundaryBytes;
        this.placement = schedule.placement(ranks, microbatches);
    }

    public StagePlacement placement() {
        return placement;
    }

    /**
     * Adds the pipeline's tasks to {@code graph}, one device per rank.
     *
     * @param rankDevice device index of each rank, as already declared in the graph builder
     * @return which tasks hold and free activations, for measuring memory from the timeline
     */
    public PipelineTasks addTo(TaskGraph.Builder graph, int[] rankDevice) {
        int[][] groups = new int[rankDevice.length][];
        for (int r = 0; r < groups.length; r++) {
            groups[r] = new int[] {rankDevice[r]};
        }
        return addTo(graph, groups);
    }

    /**
     * Adds the pipeline's tasks to {@code graph}.
     *
     * @param rankDevices the devices of each rank (one, or a tensor-parallel group), already declared
     * @return which tasks hold and free activations and when each stage's gradients are complete
     */
    public PipelineTasks addTo(TaskGraph.Builder graph, int[][] rankDevices) {
        if (rankDevices.length != ranks) {
            throw new IllegalArgumentException(ranks + " ranks but " + rankDevices.length + " device groups");
        }
        int stages = placement.stages();
        Spans fwd = new Spans(microbatches, stages);
        Spans bIn = new Spans(microbatches, stages);
        Spans bW = new Spans(microbatches, stages);
        List<List<PipelineOp>> programs = new ArrayList<>(ranks);
        List<PipelineTasks.Entry> ledger = new ArrayList<>();
        java.util.Map<Integer, int[]> gradReady = new java.util.HashMap<>();
        java.util.Map<Integer, Integer> gradOrder = new java.util.HashMap<>();
        java.util.Map<Integer, Integer> gradStep = new java.util.HashMap<>();
        java.util.Map<Integer, int[]> backwardEnds = new java.util.HashMap<>();
        java.util.Map<Integer, Integer> firstForward = new java.util.HashMap<>();
        List<int[]> firstTasks = new ArrayList<>(ranks);
        java.util.Map<Integer, int[]> forwardAfter = new java.util.HashMap<>();
        for (int r = 0; r < ranks; r++) {
            List<PipelineOp> program = schedule.program(r, ranks, microbatches);
            programs.add(program);
            int[] firsts = new int[program.size()];
            firstTasks.add(firsts);
            List<Integer> afters = new ArrayList<>();
            int previousLast = -1;
            int index = 0;
            List<Integer> backwards = new ArrayList<>();
            for (PipelineOp op : program) {
                if (op instanceof PipelineOp.Action a) {
                    int stage = stageOf(r, a);
                    StageWork.Emitted e = work.emit(graph, rankDevices[r], r, stage, a, label(a));
                    firsts[index++] = e.first();
                    if (a.kind() == ActionKind.FORWARD) {
                        afters.add(previousLast);
                    }
                    previousLast = e.last();
                    record(r, a, stage, e, fwd, bIn, bW, ledger);
                    if (a.kind() == ActionKind.FORWARD) {
                        firstForward.putIfAbsent(r * stages + stage, e.first());
                    } else if (a.kind() == ActionKind.BACKWARD) {
                        backwards.add(e.last());
                    }
                    if (e.gradReady().length > 0) {
                        gradReady.put(r * stages + stage, e.gradReady());
                        gradOrder.put(r * stages + stage, index);
                        gradStep.put(r * stages + stage,
                                a.kind() == ActionKind.BACKWARD ? backwards.size() - 1 : -1);
                    }
                } else if (op instanceof PipelineOp.Overlapped pair) {
                    int fs = stageOf(r, pair.forward());
                    int bs = stageOf(r, pair.backward());
                    StageWork.Overlap o = work.emitOverlapped(graph, rankDevices[r], r, pair, fs, bs,
                            label(pair.forward()) + " & " + label(pair.backward()));
                    firsts[index++] = Math.min(o.forward().first(), o.backward().first());
                    afters.add(previousLast);
                    previousLast = Math.max(o.forward().last(), o.backward().last());
                    record(r, pair.forward(), fs, o.forward(), fwd, bIn, bW, ledger);
                    firstForward.putIfAbsent(r * stages + fs, o.forward().first());
                    record(r, pair.backward(), bs, o.backward(), fwd, bIn, bW, ledger);
                    gradReady.put(r * stages + bs, o.backward().gradReady());
                    gradOrder.put(r * stages + bs, index);
                    backwards.add(o.backward().last());
                    gradStep.put(r * stages + bs, backwards.size() - 1);
                }
            }
            forwardAfter.put(r, afters.stream().mapToInt(Integer::intValue).toArray());
            backwardEnds.put(r, backwards.stream().mapToInt(Integer::intValue).toArray());
        }
        checkCovered(fwd, bIn, bW);
        for (int mb = 0; mb < microbatches; mb++) {
            for (int k = 0; k < stages; k++) {
                if (bIn.first[mb][k] != fwd.last[mb][k]) {
                    graph.addDependency(bIn.first[mb][k], fwd.last[mb][k]);
                }
                if (bW.first[mb][k] != bIn.last[mb][k] && bW.first[mb][k] != bIn.first[mb][k]) {
                    graph.addDependency(bW.first[mb][k], bIn.last[mb][k]);
                }
            }
        }
        java.util.Map<Integer, List<Integer>> inputs = new java.util.HashMap<>();
        for (int r = 0; r < ranks; r++) {
            List<PipelineOp> program = programs.get(r);
            for (int i = 0; i < program.size(); i++) {
                int next = blockingSends && i + 1 < program.size() ? firstTasks.get(r)[i + 1] : -1;
                for (PipelineOp.Action a : actions(program.get(i))) {
                    connect(graph, rankDevices, r, a, fwd, bIn, next, firstForward, inputs);
                }
            }
        }
        java.util.Map<Integer, int[]> firstInputs = new java.util.HashMap<>();
        inputs.forEach((k, v) -> firstInputs.put(k, v.stream().mapToInt(Integer::intValue).toArray()));
        return new PipelineTasks(ranks, stages, placement.chunkShare(), ledger, gradReady, gradOrder, gradStep,
                backwardEnds, firstForward, firstInputs, forwardAfter);
    }

    /** First and last task of each (microbatch, stage) for one kind of pass. */
    private static final class Spans {
        final int[][] first;
        final int[][] last;

        Spans(int microbatches, int stages) {
            first = filled(microbatches, stages);
            last = filled(microbatches, stages);
        }
    }

    /**
     * Adds the data dependencies that leave the stage of {@code a}: same-rank edges or sends.
     * What arrives for the first forward of a stage on a rank is noted in {@code inputs}.
     */
    private void connect(TaskGraph.Builder graph, int[][] rankDevices, int r, PipelineOp.Action a, Spans fwd,
                         Spans bIn, int blockedUntilSent, java.util.Map<Integer, Integer> firstForward,
                         java.util.Map<Integer, List<Integer>> inputs) {
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
            producer = fwd.last[mb][k];
            consumer = fwd.first[mb][target];
            what = "act";
        } else if (a.kind() == ActionKind.BACKWARD || a.kind() == ActionKind.BACKWARD_INPUT) {
            if (k == 0) {
                return;
            }
            target = k - 1;
            producer = bIn.last[mb][k];
            consumer = bIn.first[mb][target];
            what = "grad";
        } else {
            return;
        }
        int q = placement.rank(mb, target);
        Integer first = firstForward.get(q * placement.stages() + target);
        List<Integer> arriving = a.kind() == ActionKind.FORWARD && first != null && first == consumer
                ? inputs.computeIfAbsent(q * placement.stages() + target, key -> new ArrayList<>()) : null;
        if (q == r) {
            graph.addDependency(consumer, producer);
            if (arriving != null) {
                arriving.add(producer);
            }
            return;
        }
        int[] from = rankDevices[r];
        int[] to = rankDevices[q];
        TaskTag sendTag = TaskTag.of(a.kind().pass(), mb, a.chunk()).carrying(TaskTag.Traffic.PIPELINE_SEND);
        for (int i = 0; i < from.length; i++) {
            int send = graph.stream(from[i], sendStream(r, q), StreamKind.COMMUNICATION);
            int recv = graph.stream(to[i % to.length], recvStream(q, r), StreamKind.COMMUNICATION);
            int t = graph.communicate(what + " mb" + mb + " s" + k + "->s" + target, sendTag,
                    new int[] {send, recv}, sends.computeIfAbsent(new Send(from[i], to[i % to.length],
                            boundaryBytes / from.length), pair -> Work.Communication.pointToPoint(pair.from(), pair.to(),
                            pair.bytes())), producer);
            graph.addDependency(consumer, t);
            if (arriving != null) {
                arriving.add(t);
            }
            if (blockedUntilSent >= 0) {
                graph.addDependency(blockedUntilSent, t);
            }
        }
    }

    private static String sendStream(int from, int to) {
        return to == from + 1 ? "pp-send-next" : to == from - 1 ? "pp-send-prev" : "pp-send-to-" + to;
    }

    private static String recvStream(int at, int from) {
        return from == at - 1 ? "pp-recv-prev" : from == at + 1 ? "pp-recv-next" : "pp-recv-from-" + from;
    }

    private void record(int rank, PipelineOp.Action a, int stage, StageWork.Emitted e, Spans fwd, Spans bIn,
                        Spans bW, List<PipelineTasks.Entry> ledger) {
        int mb = a.microbatch();
        for (StageWork.HostMove m : e.moves()) {
            ledger.add(new PipelineTasks.Entry(rank, stage, m.task(), m.allocate(), m.layer()));
        }
        switch (a.kind()) {
            case FORWARD -> {
                once(fwd, mb, stage, e, rank, a);
                ledger.add(new PipelineTasks.Entry(rank, stage, e.first(), true));
            }
            case BACKWARD -> {
                once(bIn, mb, stage, e, rank, a);
                once(bW, mb, stage, e, rank, a);
                ledger.add(new PipelineTasks.Entry(rank, stage, e.last(), false));
            }
            case BACKWARD_INPUT -> once(bIn, mb, stage, e, rank, a);
            case BACKWARD_WEIGHT -> {
                once(bW, mb, stage, e, rank, a);
                ledger.add(new PipelineTasks.Entry(rank, stage, e.last(), false));
            }
        }
    }

    private void once(Spans slot, int mb, int stage, StageWork.Emitted e, int rank, PipelineOp.Action a) {
        if (slot.first[mb][stage] >= 0) {
            throw new IllegalStateException(schedule.name() + ": rank " + rank + " runs " + a + " twice");
        }
        slot.first[mb][stage] = e.first();
        slot.last[mb][stage] = e.last();
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

    private void checkCovered(Spans fwd, Spans bIn, Spans bW) {
        for (int mb = 0; mb < microbatches; mb++) {
            for (int k = 0; k < placement.stages(); k++) {
                String missing = fwd.first[mb][k] < 0 ? "forward" : bIn.first[mb][k] < 0 ? "backward"
                        : bW.first[mb][k] < 0 ? "weight gradient" : null;
                if (missing != null) {
                    throw new IllegalStateException(schedule.name() + ": no rank runs the " + missing
                            + " of microbatch " + mb + " at stage " + k + " (rank " + placement.rank(mb, k) + ")");
                }
            }
        }
    }

    String label(PipelineOp.Action a) {
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
