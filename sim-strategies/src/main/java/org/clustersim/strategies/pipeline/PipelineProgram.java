package org.clustersim.strategies.pipeline;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;

/**
 * Turns a pipeline schedule into tasks: each rank's actions become compute tasks on its
 * compute stream, in schedule order, and every stage boundary gets an activation send
 * (forward) and a gradient send (backward) per microbatch.
 *
 * <p>A send occupies the sender's {@code pp-send-next} (or {@code pp-send-prev}) stream and
 * the receiver's matching receive stream, so sends in one direction between two ranks are
 * serialised as over one NCCL channel. Receives are posted ahead of time: a transfer starts as
 * soon as the sending compute task is done and the channel is free, and the receiving compute
 * task waits for it.
 */
public final class PipelineProgram {
    /** Trace category of stage-to-stage sends. */
    public static final String P2P_CATEGORY = "pp-p2p";

    private final PipelineSchedule schedule;
    private final List<StageCost> stages;
    private final int microbatches;
    private final long activationBytes;

    /**
     * @param schedule        the rank programs
     * @param stages          cost of each stage, one per rank
     * @param microbatches    microbatches per step
     * @param activationBytes bytes sent across each stage boundary per microbatch, each way
     */
    public PipelineProgram(PipelineSchedule schedule, List<StageCost> stages, int microbatches,
                           long activationBytes) {
        schedule.validate(stages.size(), microbatches);
        this.schedule = schedule;
        this.stages = List.copyOf(stages);
        this.microbatches = microbatches;
        this.activationBytes = activationBytes;
    }

    /**
     * Adds the pipeline's tasks to {@code graph}.
     *
     * @param rankDevice device index of each rank, as already declared in the graph builder
     */
    public void addTo(TaskGraph.Builder graph, int[] rankDevice) {
        int p = stages.size();
        if (rankDevice.length != p) {
            throw new IllegalArgumentException(p + " stages but " + rankDevice.length + " devices");
        }
        int[][] fwd = new int[p][microbatches];
        int[][] bwd = new int[p][microbatches];
        List<List<PipelineAction>> programs = new java.util.ArrayList<>(p);
        for (int r = 0; r < p; r++) {
            List<PipelineAction> actions = schedule.actions(r, p, microbatches);
            checkComplete(r, actions);
            programs.add(actions);
            int compute = graph.stream(rankDevice[r], "compute", StreamKind.COMPUTE);
            StageCost cost = stages.get(r);
            for (PipelineAction a : actions) {
                String name = a.kind().letter() + " mb" + a.microbatch();
                if (a.kind() == ActionKind.FORWARD) {
                    fwd[r][a.microbatch()] = graph.compute(name, a.kind().category(), compute, cost.forwardNs(),
                            cost.forwardFlops());
                } else {
                    bwd[r][a.microbatch()] = graph.compute(name, a.kind().category(), compute, cost.backwardNs(),
                            cost.backwardFlops());
                }
            }
            for (int i = 0; i < microbatches; i++) {
                graph.addDependency(bwd[r][i], fwd[r][i]);
            }
        }
        for (int r = 0; r + 1 < p; r++) {
            int send = graph.stream(rankDevice[r], "pp-send-next", StreamKind.COMMUNICATION);
            int recv = graph.stream(rankDevice[r + 1], "pp-recv-prev", StreamKind.COMMUNICATION);
            for (PipelineAction a : programs.get(r)) {
                if (a.kind() == ActionKind.FORWARD) {
                    int i = a.microbatch();
                    int t = graph.communicate("act mb" + i + " s" + r + "->s" + (r + 1), P2P_CATEGORY,
                            new int[] {send, recv},
                            Work.Communication.pointToPoint(rankDevice[r], rankDevice[r + 1], activationBytes),
                            fwd[r][i]);
                    graph.addDependency(fwd[r + 1][i], t);
                }
            }
        }
        for (int r = p - 1; r > 0; r--) {
            int send = graph.stream(rankDevice[r], "pp-send-prev", StreamKind.COMMUNICATION);
            int recv = graph.stream(rankDevice[r - 1], "pp-recv-next", StreamKind.COMMUNICATION);
            for (PipelineAction a : programs.get(r)) {
                if (a.kind() == ActionKind.BACKWARD) {
                    int i = a.microbatch();
                    int t = graph.communicate("grad mb" + i + " s" + r + "->s" + (r - 1), P2P_CATEGORY,
                            new int[] {send, recv},
                            Work.Communication.pointToPoint(rankDevice[r], rankDevice[r - 1], activationBytes),
                            bwd[r][i]);
                    graph.addDependency(bwd[r - 1][i], t);
                }
            }
        }
    }

    /** Every rank must run exactly one forward and one backward of every microbatch. */
    private void checkComplete(int rank, List<PipelineAction> actions) {
        Map<ActionKind, boolean[]> seen = new HashMap<>();
        for (PipelineAction a : actions) {
            if (a.microbatch() < 0 || a.microbatch() >= microbatches) {
                throw new IllegalStateException(schedule.name() + ": rank " + rank + " runs " + a
                        + " outside microbatches 0.." + (microbatches - 1));
            }
            boolean[] s = seen.computeIfAbsent(a.kind(), k -> new boolean[microbatches]);
            if (s[a.microbatch()]) {
                throw new IllegalStateException(schedule.name() + ": rank " + rank + " runs " + a + " twice");
            }
            s[a.microbatch()] = true;
        }
        if (actions.size() != 2 * microbatches) {
            throw new IllegalStateException(schedule.name() + ": rank " + rank + " runs " + actions.size()
                    + " actions, expected " + 2 * microbatches);
        }
    }
}
