package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

import org.clustersim.strategies.pipeline.CombinedOneFOneB;
import org.clustersim.strategies.pipeline.InterleavedSchedule;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StagePlacement;

/**
 * Megatron-core's overlapped all-gather of updated weights ({@code --overlap-param-gather}; off
 * by default, {@code DistributedDataParallelConfig.overlap_param_gather = False}) under the
 * distributed optimizer (ZeRO 1 or 2). Instead of all-gathering the updated bf16 weights right
 * after the optimizer, the next step gathers them bucket by bucket, in the gradient buckets
 * ({@link GradientBuckets}), each bucket waited for by the forward pre-hook of the first module
 * that uses it on the step's first microbatch (distributed_data_parallel.py,
 * {@code _make_forward_pre_hook}). When each gather is dispatched depends on
 * {@code align_param_gather}:
 * <ul>
 * <li><b>aligned</b> (the interleaved schedule, combined or not, with
 *     {@link StepSequence#alignParamGather()}: Megatron-LM's default, {@code --no-align-param-gather}
 *     turns it off, and Megatron-Bridge's whenever virtual pipelining is on): training.py sets
 *     {@code config.param_sync_func} to each chunk's {@code start_param_sync}, which dispatches
 *     all the chunk's bucket groups at once, in the buffer's order (backward order: the last
 *     layers' bucket first, so the first module waits for the whole chunk). schedules.py
 *     ({@code forward_backward_pipelining_with_interleaving}) calls it for chunks 0 and 1 at the
 *     schedule start, before the rank receives anything, and for chunk c (1 &lt; c &lt; v) before
 *     the rank's forward number (c - 1) p - r ("at the same time across the pipeline-parallel
 *     group"), p forwards or more ahead of the chunk's first use. The pre-hooks only wait
 *     ({@code skip_next_bucket_dispatch}). With {@link StepSequence#withOptimizerStep()}
 *     ({@code overlap_param_gather_with_optimizer_step}) chunk 0's gather is dispatched inside
 *     the previous optimizer step instead, right after chunk 0's own Adam step (optimizer.py,
 *     {@code ChainedOptimizer._step}), under the other chunks' Adam step.</li>
 * <li><b>not aligned</b> (every other schedule: arguments.py turns {@code align_param_gather}
 *     off without virtual pipelining, and the other schedule functions never call
 *     {@code param_sync_func}; or {@code alignParamGather: false}): the pre-hook of the first
 *     module of a model chunk dispatches that chunk's first bucket and waits for it, and the
 *     pre-hook of the first module of bucket j waits for bucket j and dispatches bucket j + 1,
 *     so every later bucket's gather runs under the forward of the bucket before; the first
 *     bucket is exposed unless the rank waits for its input activations anyway. The schedule
 *     receives those before it runs the forward (the current stream waits for the receive, and
 *     with Megatron-core's default {@code batch_p2p_sync} the host synchronises on it), so on a
 *     later pipeline rank the first bucket is exposed after the activations arrive rather than
 *     hidden behind the wait.</li>
 * </ul>
 * A collective issued by the host starts on the GPU once the compute queued before it has run
 * (PyTorch's NCCL process group makes its stream wait for the current one): a gather dispatched
 * at the schedule start waits for the rank's previous update (its Adam step, which the gather
 * reads), one dispatched before forward n for the action before that forward, one dispatched by
 * a pre-hook for the task before the hook's module. Expert weights form a chain of their own,
 * waited for at the first MoE layer of the chunk (aligned: dispatched with the chunk's dense
 * buckets, after them). Gathers run on the data-parallel stream, ahead of the step's gradient
 * reductions, as NCCL kernels beside compute ({@link CommInterference} charges their SMs).
 */
final class ParamGatherPrefetch {
    private final TrainingStep step;
    private final DataParallelCollectives dpc;
    private final List<PipelineTasks> pipelines;
    private final ForwardEntries entries;
    private final StagePlacement placement;
    private final boolean aligned;
    private final boolean withOptimizerStep;

    /** A gather to add: where it is issued in the rank's first forward of its chunk, for ordering. */
    private record Pending(int chunkOrder, int issueAt, int sequence, Runnable add) {
    }

    ParamGatherPrefetch(TrainingStep step, StepSequence sequence, DataParallelCollectives dpc,
                        List<PipelineTasks> pipelines, ForwardEntries entries) {
        this.step = step;
        this.dpc = dpc;
        this.pipelines = pipelines;
        this.entries = entries;
        this.placement = step.schedule().placement(step.pp(), step.microbatches());
        boolean interleaved = interleaved(step.schedule());
        this.aligned = interleaved && sequence.alignParamGather();
        this.withOptimizerStep = interleaved && sequence.withOptimizerStep();
    }

    /**
     * Whether Megatron-core runs {@code schedule} through its interleaved schedule function, the
     * only one that calls {@code param_sync_func}: the interleaved schedule, alone or combined
     * ({@code overlap_moe_expert_parallel_comm}, whose forwards keep the interleaved order).
     */
    static boolean interleaved(PipelineSchedule schedule) {
        return schedule instanceof InterleavedSchedule
                || schedule instanceof CombinedOneFOneB c && c.base() instanceof InterleavedSchedule;
    }

    /** Whether the schedule dispatches whole chunks' gathers ({@code align_param_gather} in effect). */
    boolean aligned() {
        return aligned;
    }

    /**
     * Adds the gathers of every pipeline rank and TP rank ahead of the step's first forwards.
     *
     * @param previous the previous step's optimizer, whose updates the gathers read; null for
     *                 the first step simulated (the update before it is not simulated)
     */
    void add(OptimizerStep previous) {
        if (step.dp() * step.cp() <= 1 || (step.zero() != 1 && step.zero() != 2)) {
            return;
        }
        for (int p = 0; p < step.pp(); p++) {
            if (aligned) {
                // chunk by chunk over every TP rank: an expert DP group spans TP ranks when etp
                // differs from tp, so its gather must sit in each member's stream where the
                // member's own chunk puts it
                for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
                    for (int t = 0; t < step.tp(); t++) {
                        addAligned(t, p, chunk, previous);
                    }
                }
                continue;
            }
            List<Pending> pending = new ArrayList<>();
            for (int t = 0; t < step.tp(); t++) {
                collect(t, p, previous, pending);
            }
            // one stream order on every member, by where each gather is issued: never a gather queued
            // behind one that the forward can only issue after waiting for it (expert DP groups
            // cross TP ranks when etp differs from tp, so the order is taken over the whole rank)
            pending.sort(Comparator.comparingInt(Pending::chunkOrder).thenComparingInt(Pending::issueAt)
                    .thenComparingInt(Pending::sequence));
            for (Pending g : pending) {
                g.add().run();
            }
        }
    }

    /** The pipeline rank's gathers for TP rank {@code t}, not yet added, into {@code pending}. */
    private void collect(int t, int p, OptimizerStep previous, List<Pending> pending) {
        List<Integer> chunks = new ArrayList<>();
        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
            if (pipelines.get(0).firstForward(p, placement.stageOfChunk(p, chunk)) >= 0) {
                chunks.add(chunk);
            }
        }
        // chunks in the order the rank first runs them
        chunks.sort(Comparator.comparingInt(c -> pipelines.get(0).firstForward(p, placement.stageOfChunk(p, c))));
        for (int order = 0; order < chunks.size(); order++) {
            int stage = placement.stageOfChunk(p, chunks.get(order));
            dense(t, p, stage, order, previous, pending);
            experts(t, p, stage, order, previous, pending);
        }
    }

    /**
     * Aligned dispatch of one model chunk on TP rank {@code t}: the chunk's dense buckets in the
     * buffer's (backward) order and then its expert weights, all at the chunk's dispatch point.
     */
    private void addAligned(int t, int p, int chunk, OptimizerStep previous) {
        int stage = placement.stageOfChunk(p, chunk);
        if (pipelines.get(0).firstForward(p, stage) < 0 || entries.of(step.device(0, 0, p, 0), stage).isEmpty()) {
            return;
        }
        Dispatch at = dispatchOf(p, chunk);
        double params = step.stageParams(stage) - (step.ep() > 1 ? step.stageExpertParams(stage) : 0);
        if (params >= 1) {
            int[] group = step.mesh().gradientGroup(t, p);
            int parts = Math.max(1, pipelines.get(0).gradientsReady(p, stage).length);
            int mainGradBytes = step.kernels().mainGradBytes();
            // buffer order: bucket 0 holds the last layers (param_and_grad_buffer.py, params[::-1])
            for (GradientBuckets.Bucket b : GradientBuckets.split(parts, params * mainGradBytes,
                    step.bucketBytes())) {
                int wait = entryIndex(p, stage, b.lastPart(), parts);
                long bytes = Math.round(b.bytes() / mainGradBytes * step.weightGatherBytes());
                alignedGather("dp-param all-gather stage" + stage + " part" + b.lastPart(), group,
                        step.shardSize(), bytes, previous, p, stage, allReplicas(), at, wait);
            }
        }
        alignedExperts(t, p, stage, previous, at);
    }

    /**
     * Where the schedule dispatches chunk {@code chunk}'s gather on pipeline rank {@code p}:
     * chunk 0 inside the optimizer step (with {@code withOptimizerStep}) or at the schedule start
     * like chunk 1, chunk c &gt; 1 before the rank's forward (c - 1) pp - p.
     */
    private record Dispatch(boolean optimizer, int forward) {
    }

    private Dispatch dispatchOf(int p, int chunk) {
        if (chunk == 0 && withOptimizerStep) {
            return new Dispatch(true, -1);
        }
        if (chunk <= 1) {
            return new Dispatch(false, -1);
        }
        // at least 1 (chunk >= 2, p < pp) and below the rank's m v forwards (m a multiple of pp)
        return new Dispatch(false, (chunk - 1) * step.pp() - p);
    }

    /** The stage's expert weights, per expert DP group, dispatched with the chunk's dense buckets. */
    private void alignedExperts(int t, int p, int stage, OptimizerStep previous, Dispatch at) {
        int wait = firstMoeEntry(p, stage);
        double params = step.ep() > 1 ? step.stageExpertParams(stage) : 0;
        if (params < 1 || step.expertShardSize() <= 1 || wait < 0) {
            return;
        }
        long bytes = Math.round(params * step.weightGatherBytes());
        for (int[] members : step.mesh().experts().dataGroups(p)) {
            if (highestTpRank(members) != t) {
                continue;
            }
            alignedGather("expert-param all-gather stage" + stage, members, step.expertShardSize(), bytes, previous,
                    p, stage, replicasOf(members), at, wait);
        }
    }

    /**
     * One aligned gather: after the members' previous update (their whole Adam step, or with the
     * optimizer-step dispatch only their first chunk's) and, before forward n, after the action
     * before it in each of {@code replicas}; entry {@code waitAt} of the stage's first forward waits.
     */
    private void alignedGather(String name, int[] members, int shard, long bytes, OptimizerStep previous, int p,
                               int stage, List<Integer> replicas, Dispatch at, int waitAt) {
        List<Integer> deps = new ArrayList<>();
        if (previous != null) {
            for (int m : members) {
                deps.addAll(at.optimizer() ? previous.firstChunkUpdateOf(m) : previous.updatesOf(m));
            }
        }
        if (at.forward() >= 0) {
            for (int d : replicas) {
                int before = pipelines.get(d).forwardAfter(p, at.forward());
                if (before >= 0) {
                    deps.add(before);
                }
            }
        }
        int task = dpc.gather(name, members, shard, bytes, deps.stream().mapToInt(Integer::intValue).toArray(), "dp");
        for (int d : replicas) {
            dpc.graph().addDependency(entries.of(step.device(0, 0, p, d), stage).get(waitAt).waiter(), task);
        }
    }

    /** The entry of the first MoE layer in the stage's first forward, -1 if none. */
    private int firstMoeEntry(int p, int stage) {
        List<ForwardEntries.Entry> first = entries.of(step.device(0, 0, p, 0), stage);
        for (int i = 0; i < first.size(); i++) {
            int layer = first.get(i).layer();
            if (layer >= 0 && step.model().isMoeLayer(layer)) {
                return i;
            }
        }
        return -1;
    }

    /** The simulated replicas a group's members belong to; with one replica simulated for all, replica 0. */
    private List<Integer> replicasOf(int[] members) {
        java.util.TreeSet<Integer> replicas = new java.util.TreeSet<>();
        for (int m : members) {
            int d = step.coordinates(m).dp();
            if (d < step.replicas()) {
                replicas.add(d);
            }
        }
        return replicas.isEmpty() ? List.of(0) : new ArrayList<>(replicas);
    }

    /** The dense buckets of one stage, forward order. */
    private void dense(int t, int p, int stage, int order, OptimizerStep previous, List<Pending> out) {
        double params = step.stageParams(stage) - (step.ep() > 1 ? step.stageExpertParams(stage) : 0);
        if (params < 1) {
            return;
        }
        int[] group = step.mesh().gradientGroup(t, p);
        int parts = Math.max(1, pipelines.get(0).gradientsReady(p, stage).length);
        int mainGradBytes = step.kernels().mainGradBytes();
        List<GradientBuckets.Bucket> buckets = new ArrayList<>(GradientBuckets.split(parts, params * mainGradBytes,
                step.bucketBytes()));
        Collections.reverse(buckets);
        List<Integer> replicas = allReplicas();
        int issueAt = -1;
        for (GradientBuckets.Bucket b : buckets) {
            int at = entryIndex(p, stage, b.lastPart(), parts);
            if (at < 0) {
                return;
            }
            long bytes = Math.round(b.bytes() / mainGradBytes * step.weightGatherBytes());
            int issue = issueAt;
            String name = "dp-param all-gather stage" + stage + " part" + b.lastPart();
            out.add(new Pending(order, issue, out.size(), () -> gather(name, group, step.shardSize(), bytes,
                    previous, p, stage, replicas, issue, at)));
            issueAt = at;
        }
    }

    /** The stage's expert weights, per expert DP group: dispatched and waited for at its first MoE layer. */
    private void experts(int t, int p, int stage, int order, OptimizerStep previous, List<Pending> out) {
        double params = step.ep() > 1 ? step.stageExpertParams(stage) : 0;
        if (params < 1 || step.expertShardSize() <= 1) {
            return;
        }
        List<ForwardEntries.Entry> first = entries.of(step.device(0, 0, p, 0), stage);
        int at = -1;
        for (int i = 0; i < first.size() && at < 0; i++) {
            int layer = first.get(i).layer();
            if (layer >= 0 && step.model().isMoeLayer(layer)) {
                at = i;
            }
        }
        if (at < 0) {
            return;
        }
        long bytes = Math.round(params * step.weightGatherBytes());
        for (int[] members : step.mesh().experts().dataGroups(p)) {
            if (highestTpRank(members) != t) {
                continue; // each expert DP group once, with the last of its TP ranks
            }
            java.util.TreeSet<Integer> replicas = new java.util.TreeSet<>();
            for (int m : members) {
                int d = step.coordinates(m).dp();
                if (d < step.replicas()) {
                    replicas.add(d);
                }
            }
            // with one replica simulated, the groups it does not belong to move when it does
            List<Integer> moving = replicas.isEmpty() ? List.of(0) : new ArrayList<>(replicas);
            int issue = at;
            out.add(new Pending(order, at, out.size(), () -> gather("expert-param all-gather stage" + stage, members,
                    step.expertShardSize(), bytes, previous, p, stage, moving, issue, issue)));
        }
    }

    /** The highest TP rank among a group's GPUs. */
    private int highestTpRank(int[] members) {
        int t = 0;
        for (int m : members) {
            t = Math.max(t, step.coordinates(m).tp());
        }
        return t;
    }

    /**
     * One gather over {@code members}: issued after the members' previous update and, in each of
     * {@code replicas}, after the task before entry {@code issueAt} of the stage's first forward
     * (-1: at its start); entry {@code waitAt} waits for it.
     */
    private void gather(String name, int[] members, int shard, long bytes, OptimizerStep previous, int p, int stage,
                        List<Integer> replicas, int issueAt, int waitAt) {
        List<Integer> deps = new ArrayList<>();
        if (previous != null) {
            for (int m : members) {
                deps.addAll(previous.updatesOf(m));
            }
        }
        for (int d : replicas) {
            List<ForwardEntries.Entry> list = entries.of(step.device(0, 0, p, d), stage);
            if (issueAt >= 0 && list.get(issueAt).before() >= 0) {
                deps.add(list.get(issueAt).before());
            } else {
                // at the forward's start: after its input activations have arrived
                for (int input : pipelines.get(d).firstForwardInputs(p, stage)) {
                    deps.add(input);
                }
            }
        }
        int task = dpc.gather(name, members, shard, bytes, deps.stream().mapToInt(Integer::intValue).toArray(), "dp");
        for (int d : replicas) {
            dpc.graph().addDependency(entries.of(step.device(0, 0, p, d), stage).get(waitAt).waiter(), task);
        }
    }

    private List<Integer> allReplicas() {
        List<Integer> all = new ArrayList<>();
        for (int d = 0; d < step.replicas(); d++) {
            all.add(d);
        }
        return all;
    }

    /**
     * The module entry (forward order) of gradient part {@code part} (backward order: the logits,
     * then the layers from the last), -1 if the first forward was not recorded.
     */
    private int entryIndex(int p, int stage, int part, int parts) {
        int n = entries.of(step.device(0, 0, p, 0), stage).size();
        if (n == 0) {
            return -1;
        }
        int fromEnd = parts == n ? part : parts == 1 ? 0 : (int) Math.round((double) part * (n - 1) / (parts - 1));
        return n - 1 - Math.min(n - 1, fromEnd);
    }
}
