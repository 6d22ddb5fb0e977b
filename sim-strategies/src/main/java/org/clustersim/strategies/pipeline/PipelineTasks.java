package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.Timeline;

/**
 * Which tasks of a pipeline create and free activations, so that the number of microbatch
 * activations alive on each rank can be measured from a timeline: a forward makes one chunk's
 * activations live when it starts; they die when the task that consumes them for the last
 * time ends (the full backward, or the W after a split backward). Also where each stage's
 * weights are first used (its first forward) and where its gradients are complete: what a
 * step's weight update waits for and what the next step's update must precede.
 */
public final class PipelineTasks {
    /**
     * One activation event.
     *
     * @param rank     the rank
     * @param stage    the stage whose activations these are
     * @param task     the task
     * @param allocate true for a forward (allocate at start), false for the task that frees at its end
     * @param layer    -1 for the stage's activations of one microbatch; else one layer's, moved
     *                 to or from host memory by an offload copy
     */
    record Entry(int rank, int stage, int task, boolean allocate, int layer) {
        /** The whole stage's activations of one microbatch. */
        Entry(int rank, int stage, int task, boolean allocate) {
            this(rank, stage, task, allocate, -1);
        }
    }

    private final int ranks;
    private final double chunkShare;
    private final List<Entry> entries;
    /** Key: rank x stages + stage (DualPipe runs every stage on two ranks, one per direction). */
    private final java.util.Map<Integer, int[]> gradReady;
    /** Key as for gradReady: the position, in the rank's program, of the action that completes them. */
    private final java.util.Map<Integer, Integer> gradOrder;
    /** Key as for gradReady: of the rank's whole backward passes, which one completes them. */
    private final java.util.Map<Integer, Integer> gradStep;
    /** Per rank, the task ending each of its whole backward passes, in program order. */
    private final java.util.Map<Integer, int[]> backwardEnds;
    private final int stages;
    /** Key as for gradReady: the first task of the first forward of the stage on the rank. */
    private final java.util.Map<Integer, Integer> firstForward;
    /** Key as for gradReady: the tasks delivering the input of that first forward. */
    private final java.util.Map<Integer, int[]> firstInputs;
    /**
     * Key: rank. For each of the rank's forwards in program order (its virtual microbatch id in
     * Megatron-core's schedules), the last task of the action before it, -1 for the first.
     */
    private final java.util.Map<Integer, int[]> forwardAfter;

    PipelineTasks(int ranks, int stages, double chunkShare, List<Entry> entries,
                  java.util.Map<Integer, int[]> gradReady, java.util.Map<Integer, Integer> gradOrder,
                  java.util.Map<Integer, Integer> gradStep, java.util.Map<Integer, int[]> backwardEnds,
                  java.util.Map<Integer, Integer> firstForward,
                  java.util.Map<Integer, int[]> firstInputs, java.util.Map<Integer, int[]> forwardAfter) {
        this.firstInputs = java.util.Map.copyOf(firstInputs);
        this.forwardAfter = java.util.Map.copyOf(forwardAfter);
        this.ranks = ranks;
        this.stages = stages;
        this.chunkShare = chunkShare;
        this.entries = List.copyOf(entries);
        this.gradReady = java.util.Map.copyOf(gradReady);
        this.gradOrder = java.util.Map.copyOf(gradOrder);
        this.gradStep = java.util.Map.copyOf(gradStep);
        this.backwardEnds = java.util.Map.copyOf(backwardEnds);
        this.firstForward = java.util.Map.copyOf(firstForward);
    }

    /** Whether every task this bookkeeping names lies in {@code first} (inclusive) to {@code end}. */
    public boolean within(int first, int end) {
        java.util.function.IntPredicate in = t -> t >= first && t < end;
        for (Entry e : entries) {
            if (!in.test(e.task())) {
                return false;
            }
        }
        for (int[] tasks : gradReady.values()) {
            if (!java.util.Arrays.stream(tasks).allMatch(in)) {
                return false;
            }
        }
        for (int[] tasks : backwardEnds.values()) {
            if (!java.util.Arrays.stream(tasks).allMatch(in)) {
                return false;
            }
        }
        for (int[] tasks : firstInputs.values()) {
            if (!java.util.Arrays.stream(tasks).allMatch(in)) {
                return false;
            }
        }
        for (int[] tasks : forwardAfter.values()) {
            if (!java.util.Arrays.stream(tasks).allMatch(t -> t < 0 || in.test(t))) {
                return false;
            }
        }
        return firstForward.values().stream().allMatch(t -> t < 0 || in.test(t));
    }

    /** The same bookkeeping for a copy of this pipeline whose tasks are numbered {@code offset} higher. */
    public PipelineTasks shifted(int offset) {
        List<Entry> moved = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            moved.add(new Entry(e.rank(), e.stage(), e.task() + offset, e.allocate(), e.layer()));
        }
        java.util.Map<Integer, Integer> first = new java.util.HashMap<>();
        firstForward.forEach((k, t) -> first.put(k, t < 0 ? t : t + offset));
        return new PipelineTasks(ranks, stages, chunkShare, moved, shifted(gradReady, offset), gradOrder, gradStep,
                shifted(backwardEnds, offset), first, shifted(firstInputs, offset), shifted(forwardAfter, offset));
    }

    private static java.util.Map<Integer, int[]> shifted(java.util.Map<Integer, int[]> tasks, int offset) {
        java.util.Map<Integer, int[]> out = new java.util.HashMap<>();
        tasks.forEach((k, t) -> out.put(k, java.util.Arrays.stream(t).map(x -> x < 0 ? x : x + offset).toArray()));
        return out;
    }

    /**
     * The activation bookkeeping of consecutive steps of one pipeline, for measuring memory over
     * all of them: every step's forwards allocate and its backwards free, so activations of two
     * steps count together only while both are really alive. Gradient readiness and first
     * forwards are those of the last step.
     */
    public static PipelineTasks acrossSteps(List<PipelineTasks> steps) {
        if (steps.size() == 1) {
            return steps.get(0);
        }
        PipelineTasks last = steps.get(steps.size() - 1);
        List<Entry> all = new ArrayList<>();
        for (PipelineTasks s : steps) {
            all.addAll(s.entries);
        }
        return new PipelineTasks(last.ranks, last.stages, last.chunkShare, all, last.gradReady, last.gradOrder,
                last.gradStep, last.backwardEnds, last.firstForward, last.firstInputs, last.forwardAfter);
    }

    /**
     * The task that starts the first forward of stage {@code stage} on rank {@code rank} in the
     * step: the first use of the stage's weights there, which the previous step's update of them
     * must precede; -1 if the rank does not run the stage.
     */
    public int firstForward(int rank, int stage) {
        return firstForward.getOrDefault(rank * stages + stage, -1);
    }

    /**
     * The tasks whose end delivers the input activations of that first forward (the sends from
     * the previous stage, or its forward on the same rank); empty for the first stage.
     */
    public int[] firstForwardInputs(int rank, int stage) {
        int[] t = firstInputs.get(rank * stages + stage);
        return t == null ? new int[0] : t.clone();
    }

    /**
     * The task queued on rank {@code rank}'s compute stream just before its forward number
     * {@code index} (its forwards counted in program order from 0, Megatron-core's virtual
     * microbatch id): the last task of the action before that forward; -1 for the rank's first
     * forward or past its last. What a collective the host issues before that forward starts after.
     */
    public int forwardAfter(int rank, int index) {
        int[] t = forwardAfter.get(rank);
        return t == null || index < 0 || index >= t.length ? -1 : t[index];
    }

    /** How many forwards rank {@code rank} runs in the step. */
    public int forwards(int rank) {
        int[] t = forwardAfter.get(rank);
        return t == null ? 0 : t.length;
    }

    /**
     * For stage {@code stage} on rank {@code rank}, the tasks at whose end each part of its
     * weight gradients is complete for the step (from the last microbatch to run the stage's
     * backward there), in the order they complete: what gradient-bucket collectives wait for.
     */
    public int[] gradientsReady(int rank, int stage) {
        int[] t = gradReady.get(rank * stages + stage);
        return t == null ? new int[0] : t.clone();
    }

    /**
     * Where, in rank {@code rank}'s program, the action that completes stage {@code stage}'s
     * gradients lies: of two stages on one rank, the one with the lower position has its
     * gradients complete first (under interleaving, the last chunk's; Megatron-core launches
     * each chunk's gradient reduction in that order). {@link Integer#MAX_VALUE} if the rank
     * does not run the stage's backward.
     */
    public int gradientsOrder(int rank, int stage) {
        return gradOrder.getOrDefault(rank * stages + stage, Integer.MAX_VALUE);
    }

    /**
     * The tasks ending rank {@code rank}'s whole backward passes (B, not split Bi / W), in the
     * order its program runs them: the points at which Megatron-core's interleaved schedule may
     * launch a chunk's gradient reduction.
     */
    public int[] backwardEnds(int rank) {
        int[] t = backwardEnds.get(rank);
        return t == null ? new int[0] : t.clone();
    }

    /**
     * Which of {@link #backwardEnds}{@code (rank)} completes stage {@code stage}'s gradients on
     * the rank; -1 if none does (no backward of the stage there, or a split one).
     */
    public int gradientsStep(int rank, int stage) {
        return gradStep.getOrDefault(rank * stages + stage, -1);
    }

    /**
     * Most activations alive at once on {@code rank} during the run, in units of one
     * microbatch through the rank's share of one model copy (a chunk of an interleaved or V
     * schedule counts its share).
     */
    public double peakActivations(Timeline timeline, int rank) {
        List<long[]> events = new ArrayList<>();
        for (Entry e : entries) {
            if (e.rank() == rank && e.layer() < 0) {
                events.add(e.allocate() ? new long[] {timeline.start(e.task()), 1}
                        : new long[] {timeline.end(e.task()), -1});
            }
        }
        // at equal times, frees first: a buffer freed at t can be reused by a forward starting at t
        events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long live = 0;
        long peak = 0;
        for (long[] ev : events) {
            live += ev[1];
            peak = Math.max(peak, live);
        }
        return peak * chunkShare;
    }

    /**
     * A rank's activation memory over the step, from the timeline: each forward allocates
     * {@code bytesPerStage.applyAsLong(stage)} at its start, the task that last uses those
     * activations frees them at its end.
     *
     * @return change points: times and the bytes live from each on (same time: frees first)
     */
    public long[][] activationBytes(Timeline timeline, int rank, java.util.function.IntToLongFunction bytesPerStage) {
        return activationBytes(timeline, rank, bytesPerStage, layer -> 0);
    }

    /**
     * As {@link #activationBytes(Timeline, int, java.util.function.IntToLongFunction)}, with the
     * layers counted apart from their stage (offloaded to host memory: made at their forward,
     * gone when their copy out ends, back when their copy in starts, freed after their backward),
     * {@code bytesPerLayer.applyAsLong(layer)} each; {@code bytesPerStage} then counts the rest.
     */
    public long[][] activationBytes(Timeline timeline, int rank, java.util.function.IntToLongFunction bytesPerStage,
                                    java.util.function.IntToLongFunction bytesPerLayer) {
        List<long[]> events = new ArrayList<>();
        for (Entry e : entries) {
            if (e.rank() == rank) {
                long b = e.layer() < 0 ? bytesPerStage.applyAsLong(e.stage()) : bytesPerLayer.applyAsLong(e.layer());
                events.add(e.allocate() ? new long[] {timeline.start(e.task()), b}
                        : new long[] {timeline.end(e.task()), -b});
            }
        }
        events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long[] times = new long[events.size()];
        long[] live = new long[events.size()];
        long now = 0;
        for (int i = 0; i < events.size(); i++) {
            now += events.get(i)[1];
            times[i] = events.get(i)[0];
            live[i] = now;
        }
        return new long[][] {times, live};
    }

    /** Peak over all ranks. */
    public double peakActivations(Timeline timeline) {
        double max = 0;
        for (int r = 0; r < ranks; r++) {
            max = Math.max(max, peakActivations(timeline, r));
        }
        return max;
    }
}
