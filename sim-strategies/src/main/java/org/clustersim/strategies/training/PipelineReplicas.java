package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.pipeline.PipelineProgram;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StageWork;

/**
 * The pipeline dimension of a step: every simulated data-parallel replica runs the schedule
 * over its pp ranks, each rank a group of tp x cp GPUs (cp groups of tp, CP rank-major) running
 * its actions as {@code work} says. A stage boundary carries b s h over the whole group, split
 * evenly over its GPUs.
 *
 * <p>Replicas are symmetric: replica d's tasks are replica 0's on GPUs (t, c, p, d) in place of
 * (t, c, p, 0). So replica 0 is built and the others are copied from it
 * ({@link TaskGraph.Builder#replicate}): a 16,384-GPU step with every replica simulated names,
 * interns and looks up the streams of 3.6 M tasks otherwise, for 28,000 distinct ones. A copy is
 * made only where it is provably what building would make: replica 0's tasks wait only for one
 * another and run only on its own GPUs (not so for an expert all-to-all across replicas), its
 * bookkeeping names only its own tasks, no part of the step hooks into its tasks as they are
 * built (ZeRO-3's per-layer gathers, prefetched parameter gathers), and every collective plan
 * made over its GPUs, moved to replica d's, is the plan made for replica d's
 * ({@link GroupPlans#moveWith}: plans follow the fabric, which a shift of servers need not
 * preserve). Every other work of a pipeline is made from its GPUs alone (sends, ring shifts).
 * Otherwise replica d is built like replica 0. Consecutive copies are made in one call, which
 * fills them side by side on a large step (their ids fixed in advance, the same graph).
 */
final class PipelineReplicas {
    private final TrainingStep step;
    private final GroupPlans plans;
    private final boolean copies;
    private int copied;

    /**
     * @param plans  the step's collective plans, which a copy checks (and makes) for its GPUs
     * @param copies whether replicas may be copied from replica 0 (built one by one otherwise:
     *               the same graph, for tests)
     */
    PipelineReplicas(TrainingStep step, GroupPlans plans, boolean copies) {
        this.step = step;
        this.plans = plans;
        this.copies = copies;
    }

    /**
     * Adds every simulated replica's pipeline; returns their activation bookkeeping, replica by replica.
     *
     * @param hooked whether another part of the step hooks into the tasks as they are built
     *               (then every replica is built)
     */
    List<PipelineTasks> addTo(TaskGraph.Builder g, StageWork work, boolean hooked) {
        List<PipelineTasks> pipelines = new ArrayList<>();
        int firstTask = g.taskCount();
        int firstStream = g.streamCount();
        pipelines.add(program(work).addTo(g, ranks(0)));
        int endTask = g.taskCount();
        int endStream = g.streamCount();
        int[] used = g.streamsOf(firstTask, endTask);
        boolean copyable = copies && !hooked && step.replicas() > 1
                && g.selfContained(firstTask, endTask) && pipelines.get(0).within(firstTask, endTask)
                && onReplicaZero(g, firstTask, endTask, used, firstStream, endStream);
        if (copyable) {
            g.reserveCopies(firstTask, endTask, step.replicas() - 1);
        }
        // consecutive copies are made together (side by side where large), in replica order
        List<int[]> streamMaps = new ArrayList<>();
        List<UnaryOperator<Work>> workMaps = new ArrayList<>();
        for (int d = 1; d < step.replicas(); d++) {
            int[] device = deviceMap(d);
            if (copyable && plans.moveWith(device)) {
                streamMaps.add(streams(g, firstStream, endStream, used, device));
                workMaps.add(works(device));
            } else {
                copy(g, firstTask, endTask, streamMaps, workMaps, pipelines);
                pipelines.add(program(work).addTo(g, ranks(d)));
            }
        }
        copy(g, firstTask, endTask, streamMaps, workMaps, pipelines);
        return pipelines;
    }

    /**
     * Copies replica 0's tasks once per pending replica (their streams declared, {@code streamMaps}
     * and {@code workMaps} theirs) and adds each copy's bookkeeping to {@code pipelines}; clears
     * both lists.
     */
    private void copy(TaskGraph.Builder g, int firstTask, int endTask, List<int[]> streamMaps,
                      List<UnaryOperator<Work>> workMaps, List<PipelineTasks> pipelines) {
        if (streamMaps.isEmpty()) {
            return;
        }
        int[] offsets = g.replicate(firstTask, endTask, streamMaps, workMaps);
        PipelineTasks first = pipelines.get(0);
        IntStream shifts = IntStream.of(offsets);
        pipelines.addAll((offsets.length > 1 ? shifts.parallel() : shifts).mapToObj(first::shifted).toList());
        copied += offsets.length;
        streamMaps.clear();
        workMaps.clear();
    }

    /** Replicas copied from replica 0 so far, not built. */
    int copied() {
        return copied;
    }

    private PipelineProgram program(StageWork work) {
        long boundary = step.model().boundaryActivationBytes(step.microBatch(), step.seqLen(),
                TrainingStep.ACTIVATION_BYTES);
        return new PipelineProgram(step.schedule(), step.pp(), step.microbatches(), work, boundary,
                step.blockingSends());
    }

    /**
     * Whether replica 0's tasks stay on its own GPUs: the streams they use ({@code used}) and
     * those its build declared, and both ends of every flow they send (an expert all-to-all's
     * task runs on one GPU's stream but sends to GPUs of other replicas).
     */
    private boolean onReplicaZero(TaskGraph.Builder g, int firstTask, int endTask, int[] used, int firstStream,
                                  int endStream) {
        int[] own = deviceMap(0);
        Map<Work, Boolean> checked = new IdentityHashMap<>();
        for (int t = firstTask; t < endTask; t++) {
            if (g.work(t) instanceof Work.Communication c && checked.put(c, Boolean.TRUE) == null) {
                for (var phase : c.phases()) {
                    for (var f : phase.flows()) {
                        if (own[f.srcDevice()] < 0 || own[f.dstDevice()] < 0) {
                            return false;
                        }
                    }
                }
            }
        }
        for (int s : used) {
            if (own[g.streamAt(s).device()] < 0) {
                return false;
            }
        }
        for (int s = firstStream; s < endStream; s++) {
            if (own[g.streamAt(s).device()] < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Declares replica d's streams in the order replica 0's build declared them (as building
     * replica d would) and maps each stream replica 0's tasks occupy onto its counterpart.
     *
     * @param used the streams replica 0's tasks occupy, first met first
     */
    private static int[] streams(TaskGraph.Builder g, int firstStream, int endStream, int[] used, int[] device) {
        for (int s = firstStream; s < endStream; s++) {
            Stream st = g.streamAt(s);
            g.stream(device[st.device()], st.name(), st.kind());
        }
        int[] streamMap = new int[g.streamCount()];
        Arrays.fill(streamMap, -1);
        for (int s : used) {
            Stream st = g.streamAt(s);
            streamMap[s] = g.stream(device[st.device()], st.name(), st.kind());
        }
        return streamMap;
    }

    /** Replica 0's communication work moved onto replica d's GPUs, each distinct work once. */
    private static UnaryOperator<Work> works(int[] device) {
        Map<Work, Work> moved = new IdentityHashMap<>();
        return w -> moved.computeIfAbsent(w, k -> ((Work.Communication) k).onDevices(d -> device[d]));
    }

    /** Per GPU of the cluster, its counterpart in replica d if it belongs to replica 0, else -1. */
    private int[] deviceMap(int d) {
        int[] device = new int[step.mesh().gpus()];
        Arrays.fill(device, -1);
        for (int p = 0; p < step.pp(); p++) {
            for (int c = 0; c < step.cp(); c++) {
                for (int t = 0; t < step.tp(); t++) {
                    device[step.device(t, c, p, 0)] = step.device(t, c, p, d);
                }
            }
        }
        return device;
    }

    /** The GPUs of each pipeline rank of replica {@code d}. */
    private int[][] ranks(int d) {
        int tp = step.tp();
        int cp = step.cp();
        int[][] ranks = new int[step.pp()][tp * cp];
        for (int p = 0; p < step.pp(); p++) {
            for (int c = 0; c < cp; c++) {
                for (int t = 0; t < tp; t++) {
                    ranks[p][c * tp + t] = step.device(t, c, p, d);
                }
            }
        }
        return ranks;
    }
}
