package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StagePlacement;

/**
 * Megatron-core's overlapped all-gather of updated weights ({@code --overlap-param-gather}; off
 * by default, {@code DistributedDataParallelConfig.overlap_param_gather = False}) under the
 * distributed optimizer (ZeRO 1 or 2). Instead of all-gathering the updated bf16 weights right
 * after the optimizer, the next step's forward gathers them bucket by bucket, in the gradient
 * buckets ({@link GradientBuckets}) taken in forward order. As in
 * megatron/core/distributed/param_and_grad_buffer.py ({@code finish_param_sync}) and
 * distributed_data_parallel.py (the forward pre-hook), on the first microbatch of the step:
 * <ul>
 * <li>the pre-hook of the first module of a model chunk dispatches that chunk's first bucket
 *     and waits for it (with {@code align_param_gather} off, the default): that bucket is
 *     exposed unless the rank waits for its input activations anyway;</li>
 * <li>the pre-hook of the first module of bucket j waits for bucket j and dispatches bucket
 *     j + 1, so every later bucket's gather runs under the forward of the bucket before.</li>
 * </ul>
 * A collective issued by the host starts on the GPU once the compute queued before it has run
 * (PyTorch's NCCL process group makes its stream wait for the current one), so the gather of
 * bucket j + 1 waits for the task before bucket j's first module, and the first two buckets for
 * the rank's previous update (its Adam step: the gather reads the updated shard) and for the
 * forward's input activations: the schedule receives them before it runs the forward (the
 * current stream waits for the receive, and with Megatron-core's default {@code batch_p2p_sync}
 * the host synchronises on it), so on a later pipeline rank the first bucket is exposed after
 * the activations arrive rather than hidden behind the wait. Expert weights
 * form a chain of their own, dispatched and waited for at the first MoE layer of the chunk.
 * Gathers run on the data-parallel stream, ahead of the step's gradient reductions.
 */
final class ParamGatherPrefetch {
    private final TrainingStep step;
    private final DataParallelCollectives dpc;
    private final List<PipelineTasks> pipelines;
    private final ForwardEntries entries;
    private final StagePlacement placement;

    /** A gather to add: where it is issued in the rank's first forward of its chunk, for ordering. */
    private record Pending(int chunkOrder, int issueAt, int sequence, Runnable add) {
    }

    ParamGatherPrefetch(TrainingStep step, DataParallelCollectives dpc, List<PipelineTasks> pipelines,
                        ForwardEntries entries) {
        this.step = step;
        this.dpc = dpc;
        this.pipelines = pipelines;
        this.entries = entries;
        this.placement = step.schedule().placement(step.pp(), step.microbatches());
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
            for (int t = 0; t < step.tp(); t++) {
                addRank(t, p, previous);
            }
        }
    }

    private void addRank(int t, int p, OptimizerStep previous) {
        List<Integer> chunks = new ArrayList<>();
        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
            if (pipelines.get(0).firstForward(p, placement.stageOfChunk(p, chunk)) >= 0) {
                chunks.add(chunk);
            }
        }
        // chunks in the order the rank first runs them
        chunks.sort(Comparator.comparingInt(c -> pipelines.get(0).firstForward(p, placement.stageOfChunk(p, c))));
        List<Pending> pending = new ArrayList<>();
        for (int order = 0; order < chunks.size(); order++) {
            int stage = placement.stageOfChunk(p, chunks.get(order));
            dense(t, p, stage, order, previous, pending);
            experts(t, p, stage, order, previous, pending);
        }
        // one stream order on every member, by where each gather is issued: never a gather queued
        // behind one that the forward can only issue after waiting for it
        pending.sort(Comparator.comparingInt(Pending::chunkOrder).thenComparingInt(Pending::issueAt)
                .thenComparingInt(Pending::sequence));
        for (Pending g : pending) {
            g.add().run();
        }
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
