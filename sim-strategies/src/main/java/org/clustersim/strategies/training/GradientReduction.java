package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.pipeline.InterleavedSchedule;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StagePlacement;

/**
 * The data-parallel gradient reduction of one TP rank of one pipeline rank, over every CP and
 * DP rank holding the same weights: dense gradients in buckets of main gradients (the
 * step's bucket size), each launched as soon as the last microbatch's backward has produced every
 * gradient in it, so they overlap the rest of the backward (or all after the rank's whole
 * backward without {@code overlapGradReduce}); an all-reduce without ZeRO, a reduce-scatter with
 * it ({@link GradientBuckets}). A rank's buckets share one NCCL communicator, its data-parallel
 * stream, and run there one after another in the order they are issued. Expert gradients are
 * reduced over each expert data-parallel group of the folded {@link ExpertMesh} (Megatron-core's
 * expert DP group, edp = tp cp dp / (etp ep) GPUs), and tied embeddings are summed between the
 * first and the last stage once both have reduced their buckets. Under ZeRO-3 the layers'
 * gradients are reduced layer by layer instead ({@link ShardedWeights}); only the embedding and
 * logits weights are left to the buckets.
 */
final class GradientReduction {
    private final TrainingStep step;
    private final DataParallelCollectives dpc;
    private final List<PipelineTasks> pipelines;
    private final StagePlacement placement;
    private final CollectiveOp op;
    private final int shard;
    /** The tied-embedding all-reduces, built once per (TP rank, context rank, replica). */
    /** The embedding's gradient all-reduce task per TP rank, CP rank and replica. */
    private final Map<EmbeddingKey, Integer> embeddingTasks = new HashMap<>();

    private record EmbeddingKey(int tp, int cp, int replica) {
    }
    /** The expert-gradient reductions each GPU's optimizer waits for, filled as TP ranks are reduced. */
    private final Map<Integer, List<Integer>> expertTasks = new HashMap<>();

    /**
     * What one TP rank of a pipeline rank reduces.
     *
     * @param dense        the dense reductions (buckets, ZeRO-3's layer reductions, the embedding sum)
     * @param experts      by GPU, the reductions of its expert gradients (every expert DP group of
     *                     the stage is built by the first TP rank that has a member in it)
     * @param params       parameters the GPU holds over its chunks
     * @param expertParams of those, the expert weights
     */
    record Reduced(List<Integer> dense, Map<Integer, List<Integer>> experts, double params, double expertParams) {
    }

    GradientReduction(TrainingStep step, DataParallelCollectives dpc, List<PipelineTasks> pipelines) {
        this.step = step;
        this.dpc = dpc;
        this.pipelines = pipelines;
        this.placement = step.schedule().placement(step.pp(), step.microbatches());
        this.op = step.zero() == 0 ? CollectiveOp.ALL_REDUCE : CollectiveOp.REDUCE_SCATTER;
        this.shard = step.zero() == 0 ? 1 : step.shardSize();
    }

    /** Ranks a dense gradient is sharded over: 1 without ZeRO. */
    int shard() {
        return shard;
    }

    /**
     * The reductions of TP rank t of pipeline rank p; {@code shardReductions} are ZeRO-3's, by
     * device. The tied embedding's sum between the first and the last stage is not among them:
     * it follows every rank's reductions ({@link #withEmbeddingSync}).
     */
    Reduced reduce(int t, int p, Map<Integer, List<Integer>> shardReductions) {
        int[] group = step.mesh().gradientGroup(t, p);
        List<Integer> reductions = new ArrayList<>();
        double localParams = 0;
        double localExperts = 0;
        int[][] rankDone = rankDone(p);
        for (int chunk : launchOrder(p)) {
            int stage = placement.stageOfChunk(p, chunk);
            double params = step.stageParams(stage);
            double expertParams = step.separateExperts() ? step.stageExpertParams(stage) : 0;
            localParams += params;
            localExperts += expertParams;
            // ZeRO-3 reduces layer gradients per microbatch; embedding and logits weights stay here
            double reduced = (step.zero() == 3 ? params - step.parameters().stageLayers(stage) : params) - expertParams;
            if (step.dp() * step.cp() > 1 && reduced >= 1) {
                buckets(group, p, stage, reduced * step.kernels().mainGradBytes(), rankDone, reductions);
            }
            if (expertParams >= 1 && step.expertShardSize() > 1) {
                experts(t, p, stage, expertParams * step.kernels().mainGradBytes());
            }
        }
        reductions.addAll(shardReductions.getOrDefault(group[0], List.of()));
        return new Reduced(reductions, expertTasks, localParams, localExperts);
    }

    /**
     * {@code reduced} (what {@link #reduce} gave TP rank t of pipeline rank p) with, on the two
     * ranks holding the tied word embedding, its gradients' sum between them. Megatron-core's
     * finalize_model_grads runs that all-reduce after finish_grad_sync has waited for every
     * data-parallel reduction of the rank (megatron/core/distributed/finalize_model_grads.py,
     * _allreduce_word_embedding_grads), so it is queued after both ranks' buckets: call this
     * once {@link #reduce} has been called for every rank.
     */
    Reduced withEmbeddingSync(int t, int p, Reduced reduced) {
        int embedRank = placement.rank(0, 0);
        int logitsRank = placement.rank(0, step.stages() - 1);
        // V shapes keep the embedding and the logits on one rank: nothing to synchronise
        if (!step.model().tiedEmbeddings() || embedRank == logitsRank || (p != embedRank && p != logitsRank)) {
            return reduced;
        }
        List<Integer> dense = new ArrayList<>(reduced.dense());
        dense.addAll(embeddingSync(t, embedRank, logitsRank));
        return new Reduced(dense, reduced.experts(), reduced.params(), reduced.expertParams());
    }

    /**
     * The rank's chunks in the order their reductions are issued on the data-parallel
     * communicator, which runs them one after another. With {@code overlapGradReduce}, the
     * order their gradients complete in: Megatron-core's backward hooks issue a bucket as its
     * last gradient arrives in the chunk's last microbatch, so under interleaving the last
     * chunk's buckets go first (param_and_grad_buffer.py, register_grad_ready). Without it,
     * finalize_model_grads issues them chunk by chunk after the whole backward.
     */
    private List<Integer> launchOrder(int p) {
        List<Integer> chunks = new ArrayList<>();
        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
            chunks.add(chunk);
        }
        if (step.overlapGradReduce()) {
            PipelineTasks first = pipelines.get(0);
            chunks.sort(java.util.Comparator.comparingInt(c -> first.gradientsOrder(p, placement.stageOfChunk(p, c))));
        }
        return chunks;
    }

    /** Per simulated replica, the tasks ending the rank's backward: each chunk's last gradient part. */
    private int[][] rankDone(int p) {
        int[][] done = new int[step.replicas()][];
        for (int d = 0; d < step.replicas(); d++) {
            List<Integer> last = new ArrayList<>();
            for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
                int[] ready = pipelines.get(d).gradientsReady(p, placement.stageOfChunk(p, chunk));
                if (ready.length > 0) {
                    last.add(ready[ready.length - 1]);
                }
            }
            done[d] = last.stream().mapToInt(Integer::intValue).toArray();
        }
        return done;
    }

    /**
     * A stage's dense gradients in buckets: with {@code overlapGradReduce} each waits for the
     * backward that completes its last part (ZeRO-3: the stage's last), or under the interleaved
     * schedule all for the chunk's aligned launch ({@link #alignedLaunch}); otherwise for the
     * rank's whole backward ({@code rankDone}).
     */
    private void buckets(int[] group, int p, int stage, double bytes, int[][] rankDone, List<Integer> out) {
        int[] readyFirst = pipelines.get(0).gradientsReady(p, stage);
        int parts = step.zero() == 3 ? 1 : Math.max(1, readyFirst.length);
        for (GradientBuckets.Bucket b : GradientBuckets.split(parts, bytes, step.bucketBytes())) {
            int i = b.lastPart();
            List<Integer> deps = new ArrayList<>();
            for (int d = 0; d < step.replicas(); d++) {
                if (!step.overlapGradReduce()) {
                    for (int done : rankDone[d]) {
                        deps.add(done);
                    }
                    continue;
                }
                int aligned = alignedLaunch(d, p, stage);
                if (aligned >= 0) {
                    deps.add(aligned);
                    continue;
                }
                int[] ready = pipelines.get(d).gradientsReady(p, stage);
                deps.add(ready[step.zero() < 3 ? Math.min(i, ready.length - 1) : ready.length - 1]);
            }
            out.add(dpc.reduce("dp-grad " + op.id() + " stage" + stage + " part" + i, op, group, shard,
                    Math.round(b.bytes()), deps.stream().mapToInt(Integer::intValue).toArray(), "dp"));
        }
    }

    /**
     * Under Megatron-core's interleaved schedule with {@code align_grad_reduce} (on by default,
     * megatron/training/training.py sets {@code grad_sync_func} to each chunk's
     * {@code start_grad_sync}), the task after which replica d's pipeline rank p launches all of
     * a stage's buckets at once: the rank's backward pass p passes after the chunk's last one
     * ("we launch asynchronous communication at the same time across the pipeline-parallel
     * group", pipeline_parallel/schedules.py, backward_step_helper_postprocess), or its last
     * backward pass when there are not that many left (the launch of any remaining grad
     * reductions after the cooldown). So every rank reduces a chunk while rank 0 finishes it,
     * and the compute the reductions slow down is slowed on all ranks at once rather than rank
     * after rank along the pipeline's drain. -1 for other schedules, ZeRO-3 and without overlap.
     */
    private int alignedLaunch(int d, int p, int stage) {
        if (!step.overlapGradReduce() || step.zero() == 3 || placement.chunksPerRank() < 2
                || !(step.schedule() instanceof InterleavedSchedule)) {
            return -1;
        }
        PipelineTasks pipeline = pipelines.get(d);
        int[] ends = pipeline.backwardEnds(p);
        int last = pipeline.gradientsStep(p, stage);
        return last < 0 || ends.length == 0 ? -1 : ends[Math.min(last + p, ends.length - 1)];
    }

    /**
     * The expert gradients of one stage, reduced over each expert data-parallel group whose
     * lowest TP rank is t (so every group is built once, before the optimizer of any member)
     * once the stage's backward has finished on its members' replicas. With one replica
     * simulated, every group launches when replica 0 is ready.
     */
    private void experts(int t, int p, int stage, double bytes) {
        for (int[] members : step.mesh().experts().dataGroups(p)) {
            if (lowestTpRank(members) != t) {
                continue;
            }
            List<Integer> deps = new ArrayList<>();
            for (int d = 0; d < step.replicas(); d++) {
                if (step.replicas() == 1 || holds(members, d)) {
                    int[] ready = pipelines.get(d).gradientsReady(p, stage);
                    deps.add(ready[ready.length - 1]);
                }
            }
            int task = dpc.reduce("expert-grad " + op.id() + " stage" + stage, op, members, step.expertShardSize(),
                    Math.round(bytes), deps.stream().mapToInt(Integer::intValue).toArray(), "dp");
            for (int m : members) {
                expertTasks.computeIfAbsent(m, k -> new ArrayList<>()).add(task);
            }
        }
    }

    /** The lowest TP rank among a group's GPUs. */
    private int lowestTpRank(int[] members) {
        int t = Integer.MAX_VALUE;
        for (int m : members) {
            t = Math.min(t, step.coordinates(m).tp());
        }
        return t;
    }

    /** Whether replica d has a GPU in the group. */
    private boolean holds(int[] members, int d) {
        for (int m : members) {
            if (step.coordinates(m).dp() == d) {
                return true;
            }
        }
        return false;
    }

    /**
     * Tied word embeddings live on the first and the last pipeline stage; their gradients are
     * summed by an all-reduce between the two (per TP rank, context rank and replica) before the
     * optimizer step, in fp32.
     */
    private List<Integer> embeddingSync(int t, int embedRank, int logitsRank) {
        List<Integer> tasks = new ArrayList<>();
        int lastStage = step.stages() - 1;
        long bytes = Math.round((double) step.model().vocab() * step.model().hidden() / step.tp()
                * step.kernels().mainGradBytes());
        for (int d = 0; d < step.replicas(); d++) {
            for (int c = 0; c < step.cp(); c++) {
                EmbeddingKey key = new EmbeddingKey(t, c, d);
                Integer known = embeddingTasks.get(key);
                if (known == null) {
                    int[] first = pipelines.get(d).gradientsReady(embedRank, 0);
                    int[] last = pipelines.get(d).gradientsReady(logitsRank, lastStage);
                    int[] deps = {first[first.length - 1], last[last.length - 1]};
                    known = dpc.reduce("embedding grad all-reduce", CollectiveOp.ALL_REDUCE,
                            new int[] {step.device(t, c, embedRank, d), step.device(t, c, logitsRank, d)}, 1, bytes,
                            deps, "dp");
                    embeddingTasks.put(key, known);
                }
                tasks.add(known);
            }
        }
        return tasks;
    }
}
