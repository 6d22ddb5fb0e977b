package org.clustersim.strategies;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.strategies.cost.GemmModel;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.PipelineProgram;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.topology.Topology;

/**
 * One training step of a dense transformer under tensor, context, pipeline and data
 * parallelism, as the task graph a Megatron-style framework runs.
 *
 * <p>Devices form a mesh with TP innermost (inside a server's NVLink domain), then CP, then
 * PP, then DP: GPU {@code t + tp (c + cp (p + pp d))}. Every data-parallel replica runs the
 * pipeline schedule over its p groups of tp x cp GPUs ({@link TensorParallelWork}); stage
 * boundaries send b s h activations split over the group. Gradients are reduced over every
 * CP and DP rank holding the same weights, in buckets (default 25 MB of fp32 gradients), each
 * launched on its own stream as soon as the last microbatch's backward has produced every
 * gradient in it, so they overlap the rest of the backward: an all-reduce without ZeRO, a
 * reduce-scatter with ZeRO 1 or 2 (the distributed optimizer). ZeRO 3 gathers and reduces
 * layer by layer instead ({@link #addShardedWeights}). The Adam step is a memory-bound compute
 * task over each GPU's share of the parameters; with ZeRO 1 or 2 it is followed by an
 * all-gather of the updated bf16 weights.
 *
 * @param model        the transformer
 * @param topology     the cluster
 * @param tp           tensor-parallel size t
 * @param pp           pipeline-parallel size p
 * @param dp           data-parallel size d
 * @param zero         ZeRO stage (0, 1 or 2)
 * @param sequenceParallel Megatron sequence parallelism
 * @param schedule     pipeline schedule
 * @param microbatches microbatches per replica m
 * @param microBatch   sequences per microbatch b
 * @param seqLen       tokens per sequence s
 * @param precision    matrix-multiply precision
 * @param recompute    activation recomputation
 * @param attention    fused (flash) or materialised (standard) attention
 * @param bucketBytes  gradient bucket size
 * @param overlapGradReduce launch each bucket as soon as its gradients exist (else all after
 *                     the rank's whole backward, as Megatron-LM's early data-parallel code did)
 * @param blockingSends a rank waits for its sends before its next action (synchronous p2p)
 * @param replicas     data-parallel replicas simulated task by task: all d, or 1. With 1, the other
 *                     replicas are taken to be identical to the first (they are, up to
 *                     contention between replicas' pipeline traffic): their GPUs join every
 *                     data-parallel collective as soon as replica 0 reaches it, so gradient
 *                     traffic still crosses the whole fabric, at a fraction of the tasks
 * @param split        layers per stage ({@link LayerSplit#even} when {@code null})
 * @param cp           context-parallel size c: every microbatch's sequence split over c GPUs,
 *                     keys and values all-gathered over them before each layer's attention and
 *                     their gradients reduce-scattered after its backward (the variant the
 *                     Llama 3 paper describes); the mesh is TP, CP, PP, DP from the inside out
 */
public record TrainingStep(TransformerModel model, Topology topology, int tp, int pp, int dp, int zero,
                           boolean sequenceParallel, PipelineSchedule schedule, int microbatches, int microBatch,
                           int seqLen, Precision precision, LayerCostModel.Recompute recompute,
                           LayerCostModel.Attention attention, long bucketBytes, boolean overlapGradReduce,
                           boolean blockingSends, int replicas, LayerSplit split, int cp) {

    /** Megatron-LM's default bucket: 25 MB. */
    public static final long DEFAULT_BUCKET = 25_000_000L;
    /** Bytes Adam reads and writes per parameter: fp32 weight, gradient and two moments in, three and bf16 weight out. */
    static final double ADAM_BYTES_PER_PARAM = 30;

    public TrainingStep {
        int stages = schedule.placement(pp, Math.max(1, microbatches)).stages();
        if (split == null) {
            split = LayerSplit.even(model.layers(), stages);
        }
        if (split.stages() != stages) {
            throw new IllegalArgumentException(schedule.name() + " cuts the model into " + stages
                    + " stages; the layer split has " + split.stages());
        }
        if (split.totalLayers() != model.layers()) {
            throw new IllegalArgumentException("the layer split holds " + split.totalLayers() + " layers; the model has "
                    + model.layers());
        }
        if (cp < 1 || seqLen % cp != 0) {
            throw new IllegalArgumentException("context parallelism " + cp + " must divide the sequence " + seqLen);
        }
        if ((long) tp * cp * pp * dp > topology.deviceCount()) {
            throw new IllegalArgumentException("the layout needs " + (long) tp * cp * pp * dp + " GPUs; the cluster has "
                    + topology.deviceCount());
        }
        if (replicas != dp && replicas != 1) {
            throw new IllegalArgumentException("simulate all " + dp + " replicas or 1, not " + replicas);
        }
        if (zero < 0 || zero > 3) {
            throw new IllegalArgumentException("ZeRO stage " + zero + " does not exist; use 0, 1, 2 or 3");
        }
    }

    /** Device of (tensor rank, pipeline rank, data-parallel rank), context rank 0. */
    public int device(int t, int p, int d) {
        return device(t, 0, p, d);
    }

    /** Device of (tensor rank, context rank, pipeline rank, data-parallel rank). */
    public int device(int t, int c, int p, int d) {
        return t + tp * (c + cp * (p + pp * d));
    }

    /** Where a GPU sits in the mesh. */
    public record Coordinates(int tp, int cp, int pp, int dp) {
    }

    /** The inverse of {@link #device(int, int, int, int)}. */
    public Coordinates coordinates(int device) {
        return new Coordinates(device % tp, (device / tp) % cp, (device / (tp * cp)) % pp, device / (tp * cp * pp));
    }

    /**
     * The GPUs that hold the same weights as TP rank t of stage rank p and reduce their
     * gradients together: every context and data-parallel rank, ordered replica by replica,
     * so the first {@code replicas x cp} are the simulated ones.
     */
    int[] gradientGroup(int t, int p) {
        int[] group = new int[dp * cp];
        for (int d = 0; d < dp; d++) {
            for (int c = 0; c < cp; c++) {
                group[d * cp + c] = device(t, c, p, d);
            }
        }
        return group;
    }

    /** Per-stage cost model. */
    public LayerCostModel layerCost() {
        return new LayerCostModel(model, GemmModel.of(topology.accelerator(), precision), tp, sequenceParallel,
                microBatch, seqLen, recompute, attention, cp);
    }

    /** Stages on a microbatch's path. */
    public int stages() {
        return schedule.placement(pp, microbatches).stages();
    }

    /** Parameters one GPU holds for stage {@code stage} (its TP shard of the stage's layers and extras). */
    public double stageParams(int stage) {
        double layers = split.layers(stage);
        double params = layers * layerParams();
        if (stage == 0) {
            params += (double) model.vocab() * model.hidden() / tp;
        }
        if (stage == stages() - 1 && !model.tiedEmbeddings()) {
            params += (double) model.vocab() * model.hidden() / tp;
        }
        return params;
    }

    /**
     * A built step.
     *
     * @param graph     the task graph over all tp x pp x dp devices
     * @param pipelines activation bookkeeping per data-parallel replica
     */
    public record Built(TaskGraph graph, List<PipelineTasks> pipelines) {
    }

    public Built build() {
        TaskGraph.Builder g = TaskGraph.builder();
        int gpus = tp * cp * pp * dp;
        for (int d = 0; d < gpus; d++) {
            g.device(topology.device(d).name(), topology.device(d).node());
        }
        LayerCostModel cost = layerCost();
        // a stage boundary carries b s h over the whole TP x CP group, split evenly over its GPUs
        long boundary = model.boundaryActivationBytes(microBatch, seqLen, precision.bytesPerElement());
        TensorParallelWork work = new TensorParallelWork(cost, topology, split,
                model.boundaryActivationBytes(microBatch, seqLen / cp, precision.bytesPerElement()),
                zero == 3 && dp * cp > 1);
        List<PipelineTasks> pipelines = new ArrayList<>();
        for (int d = 0; d < replicas; d++) {
            int[][] ranks = new int[pp][tp * cp];
            for (int p = 0; p < pp; p++) {
                for (int c = 0; c < cp; c++) {
                    for (int t = 0; t < tp; t++) {
                        ranks[p][c * tp + t] = device(t, c, p, d);
                    }
                }
            }
            pipelines.add(new PipelineProgram(schedule, pp, microbatches, work, boundary, blockingSends)
                    .addTo(g, ranks));
        }
        java.util.Map<String, Collectives.Choice> chosen = new java.util.HashMap<>();
        java.util.Map<Integer, List<Integer>> shardReductions = work.shardUses() == null ? java.util.Map.of()
                : addShardedWeights(g, work.shardUses(), chosen);
        addOptimizer(g, pipelines, chosen, shardReductions);
        return new Built(g.build(), pipelines);
    }

    /** Parameters of one layer on one GPU: its TP shard of the matrices plus the two norms. */
    double layerParams() {
        return model.layerMatmulParams() / tp + 2.0 * model.hidden();
    }

    /**
     * ZeRO-3 (FSDP full sharding, Zhao et al., VLDB 2023): every layer pass that needs the
     * layer's weights waits for an all-gather of its bf16 shards over the data-parallel group,
     * issued one layer ahead; every pass that completes the layer's gradients is followed by a
     * reduce-scatter of them (fp32), once per microbatch as FSDP does without no_sync. Gathers
     * and reductions run on two streams of their own, in each rank's program order.
     *
     * @return per device, the reduce-scatters the optimizer step waits for
     */
    private java.util.Map<Integer, List<Integer>> addShardedWeights(TaskGraph.Builder g,
            java.util.Map<Integer, List<TensorParallelWork.ShardUse>> uses, java.util.Map<String, Collectives.Choice> chosen) {
        java.util.Map<Integer, List<Integer>> reductions = new java.util.HashMap<>();
        long gatherBytes = Math.round(layerParams() * precision.bytesPerElement());
        long gradBytes = Math.round(layerParams() * 4);
        for (int p = 0; p < pp; p++) {
            List<List<TensorParallelWork.ShardUse>> perReplica = new ArrayList<>();
            for (int d = 0; d < replicas; d++) {
                perReplica.add(uses.getOrDefault(device(0, p, d), List.of()));
            }
            int n = perReplica.get(0).size();
            for (int t = 0; t < tp; t++) {
                int[] group = gradientGroup(t, p);
                List<Integer> rs = reductions.computeIfAbsent(group[0], k -> new ArrayList<>());
                for (int i = 0; i < n; i++) {
                    TensorParallelWork.ShardUse u0 = perReplica.get(0).get(i);
                    if (u0.gathers) {
                        int[] window = new int[u0.window < 0 ? 0 : replicas];
                        for (int d = 0; d < window.length; d++) {
                            window[d] = perReplica.get(d).get(i).window;
                        }
                        int ag = collective(g, "fsdp all-gather L" + u0.layer, CollectiveOp.ALL_GATHER, group,
                                gatherBytes, window, chosen, "fsdp-ag");
                        for (int d = 0; d < replicas; d++) {
                            g.addDependency(perReplica.get(d).get(i).user, ag);
                        }
                    }
                    if (u0.gradsDone >= 0) {
                        int[] done = new int[replicas];
                        for (int d = 0; d < replicas; d++) {
                            done[d] = perReplica.get(d).get(i).gradsDone;
                        }
                        rs.add(collective(g, "fsdp reduce-scatter L" + u0.layer, CollectiveOp.REDUCE_SCATTER, group,
                                gradBytes, done, chosen, "fsdp-rs"));
                    }
                }
            }
        }
        return reductions;
    }

    /** Gradient buckets, the data-parallel reduction, the Adam step and (ZeRO 1, 2) the weight all-gather. */
    private void addOptimizer(TaskGraph.Builder g, List<PipelineTasks> pipelines,
                              java.util.Map<String, Collectives.Choice> chosen,
                              java.util.Map<Integer, List<Integer>> shardReductions) {
        java.util.Map<String, Integer> embeddingTasks = new java.util.HashMap<>();
        var placement = schedule.placement(pp, microbatches);
        int embedRank = placement.rank(0, 0);
        int logitsRank = placement.rank(0, stages() - 1);
        double gradBytesPerParam = 4;
        for (int p = 0; p < pp; p++) {
            for (int t = 0; t < tp; t++) {
                int[] group = gradientGroup(t, p);
                List<Integer> reductions = new ArrayList<>();
                double localParams = 0;
                for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
                    int stage = placement.stageOfChunk(p, chunk);
                    double params = stageParams(stage);
                    localParams += params;
                    // ZeRO-3 reduces layer gradients per microbatch; embedding and logits weights stay here
                    double reduced = zero == 3 ? params - split.layers(stage) * layerParams() : params;
                    if (dp * cp == 1 || reduced < 1) {
                        continue;
                    }
                    int[] readyFirst = pipelines.get(0).gradientsReady(p, stage);
                    int parts = zero == 3 ? 1 : Math.max(1, readyFirst.length);
                    double partBytes = reduced * gradBytesPerParam / parts;
                    double pending = 0;
                    for (int i = 0; i < parts; i++) {
                        pending += partBytes;
                        if (pending < bucketBytes && i < parts - 1) {
                            continue;
                        }
                        int[] deps = new int[replicas];
                        for (int d = 0; d < replicas; d++) {
                            int[] ready = pipelines.get(d).gradientsReady(p, stage);
                            deps[d] = ready[overlapGradReduce && zero < 3 ? Math.min(i, ready.length - 1) : ready.length - 1];
                        }
                        CollectiveOp op = zero == 0 ? CollectiveOp.ALL_REDUCE : CollectiveOp.REDUCE_SCATTER;
                        reductions.add(collective(g, "dp-grad " + op.id() + " stage" + stage + " part" + i, op, group,
                                Math.round(pending), deps, chosen));
                        pending = 0;
                    }
                }
                reductions.addAll(shardReductions.getOrDefault(group[0], List.of()));
                // V shapes keep the embedding and the logits on one rank: nothing to synchronise
                if (model.tiedEmbeddings() && embedRank != logitsRank && (p == embedRank || p == logitsRank)) {
                    reductions.addAll(embeddingSync(g, t, embedRank, logitsRank, pipelines, chosen, embeddingTasks));
                }
                double shard = zero == 0 ? localParams : localParams / (dp * cp);
                double adamNs = GemmModel.of(topology.accelerator(), precision).memoryNs(shard * ADAM_BYTES_PER_PARAM);
                int[] optimizer = new int[replicas * cp];
                for (int i = 0; i < optimizer.length; i++) {
                    int d = i / cp;
                    int stream = g.stream(group[i], "compute", StreamKind.COMPUTE);
                    optimizer[i] = g.compute("adam step", "optimizer", stream, Math.round(adamNs), 0);
                    for (int r : reductions) {
                        g.addDependency(optimizer[i], r);
                    }
                    if (reductions.isEmpty()) {
                        // without data parallelism the step waits for the rank's own last backward
                        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
                            for (int ready : pipelines.get(d).gradientsReady(p, placement.stageOfChunk(p, chunk))) {
                                g.addDependency(optimizer[i], ready);
                            }
                        }
                    }
                }
                if ((zero == 1 || zero == 2) && dp * cp > 1) {
                    long weightBytes = Math.round(localParams * precision.bytesPerElement());
                    collective(g, "dp-param all-gather rank" + p, CollectiveOp.ALL_GATHER, group, weightBytes, optimizer,
                            chosen);
                }
            }
        }
    }

    /**
     * Tied word embeddings live on the first and the last pipeline stage (ranks {@code embedRank}
     * and {@code logitsRank}); their gradients are summed by an all-reduce between the two (per
     * TP rank, context rank and replica) before the optimizer
     * step, in fp32. Built once per (TP rank, replica), remembered in {@code embeddingTasks}.
     */
    private List<Integer> embeddingSync(TaskGraph.Builder g, int t, int embedRank, int logitsRank,
                                        List<PipelineTasks> pipelines,
                                        java.util.Map<String, Collectives.Choice> chosen,
                                        java.util.Map<String, Integer> embeddingTasks) {
        String key = "embedding/" + t;
        List<Integer> tasks = new ArrayList<>();
        int lastStage = stages() - 1;
        long bytes = Math.round((double) model.vocab() * model.hidden() / tp * 4);
        for (int d = 0; d < replicas; d++) {
            for (int c = 0; c < cp; c++) {
                Integer known = embeddingTasks.get(key + "/" + c + "/" + d);
                if (known == null) {
                    int[] first = pipelines.get(d).gradientsReady(embedRank, 0);
                    int[] last = pipelines.get(d).gradientsReady(logitsRank, lastStage);
                    int[] deps = {first[first.length - 1], last[last.length - 1]};
                    known = collective(g, "embedding grad all-reduce", CollectiveOp.ALL_REDUCE,
                            new int[] {device(t, c, embedRank, d), device(t, c, logitsRank, d)}, bytes, deps, chosen);
                    embeddingTasks.put(key + "/" + c + "/" + d, known);
                }
                tasks.add(known);
            }
        }
        return tasks;
    }

    /**
     * A data-parallel collective task. The algorithm and protocol are chosen (auto) once per
     * operation and size, on the first group, and reused for the other groups, which have the
     * same shape on the fabric.
     */
    private int collective(TaskGraph.Builder g, String name, CollectiveOp op, int[] devices, long bytes, int[] deps,
                           java.util.Map<String, Collectives.Choice> chosen) {
        return collective(g, name, op, devices, bytes, deps, chosen, "dp");
    }

    private int collective(TaskGraph.Builder g, String name, CollectiveOp op, int[] devices, long bytes, int[] deps,
                           java.util.Map<String, Collectives.Choice> chosen, String streamName) {
        CommGroup group = new CommGroup(devices);
        int[] streams = new int[devices.length];
        for (int i = 0; i < devices.length; i++) {
            streams[i] = g.stream(devices[i], streamName, StreamKind.COMMUNICATION);
        }
        String key = op.name() + "/" + bytes;
        Collectives.Choice c = chosen.get(key);
        org.clustersim.core.engine.Work.Communication work;
        if (c == null) {
            c = Collectives.plan("auto", op, group, bytes, topology);
            chosen.put(key, c);
            work = c.work();
        } else {
            work = new org.clustersim.core.engine.Work.Communication(c.algorithm().plan(op, group, bytes, c.protocol(),
                    topology));
        }
        return g.communicate(name, "dp-comm", streams, work, deps);
    }
}
