package org.clustersim.strategies.training;

import java.util.List;
import java.util.Set;

import org.clustersim.core.engine.Interference;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.CommKernels;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.topology.Topology;

/**
 * One training step of a transformer under tensor, context, pipeline, data and expert
 * parallelism: what the step is (model, cluster, layout, schedule, batch, kernels, options),
 * the parameters each GPU holds, and {@link #build()}, which hands it to the {@link StepBuilder}
 * that composes the per-dimension parts into the task graph a Megatron-style framework runs.
 *
 * <p>Devices form a {@link Mesh}, by default TP innermost (inside a server's NVLink domain),
 * then CP, then PP, then DP. Every data-parallel replica runs the pipeline schedule over its p
 * groups of tp x cp GPUs; stage boundaries send b s h activations split over the group; MoE
 * layers exchange tokens over the expert-parallel groups of the {@link ExpertMesh} folded over
 * each stage's GPUs (etp x ep x edp). Gradients are reduced over every CP and DP rank holding
 * the same weights (expert weights over the expert data-parallel group), in buckets of main gradients (scenarios default to Megatron-core's size) that overlap the rest
 * of the backward: an all-reduce without ZeRO, a reduce-scatter with ZeRO 1 or 2 (the
 * distributed optimizer). ZeRO 3 gathers and reduces layer by layer instead, as the framework of {@link ShardingOptions} does. With hybrid
 * sharding ZeRO shards over groups of {@code shardGroup} of those ranks and replicates across
 * the groups (HSDP). The Adam step follows; with ZeRO 1 or 2 an all-gather of the updated bf16
 * weights after it.
 *
 * @param model        the transformer
 * @param topology     the cluster
 * @param mesh         the device mesh: TP, CP, PP, DP (and EP inside DP) sizes and their order
 * @param zero         ZeRO stage (0 to 3)
 * @param shardGroup   ranks ZeRO shards over (hybrid sharding), 0 for all of them (dp x cp; the
 *                     expert data-parallel group for expert weights)
 * @param sequenceParallel Megatron sequence parallelism
 * @param cpKind       how context parallelism exchanges keys and values
 * @param schedule     pipeline schedule
 * @param microbatches microbatches per replica m
 * @param microBatch   sequences per microbatch b
 * @param seqLen       tokens per sequence s
 * @param kernels      what each kernel costs: the GPU's device profile, the GEMM precision, the
 *                     FP8 recipe, the attention implementation
 * @param recompute    activation recomputation
 * @param bucketBytes  gradient bucket size
 * @param overlapGradReduce launch each bucket as soon as its gradients exist (else all after
 *                     the rank's whole backward, as Megatron-LM's early data-parallel code did)
 * @param blockingSends a rank waits for its sends before its next action (synchronous p2p)
 * @param replicas     data-parallel replicas simulated task by task: all d, or 1. With 1, the other
 *                     replicas are taken to be identical to the first (they are, up to
 *                     contention between replicas' pipeline traffic): their GPUs join every
 *                     data-parallel collective and expert all-to-all as soon as replica 0
 *                     reaches it, so that traffic still crosses the whole fabric, at a fraction
 *                     of the tasks
 * @param split        layers per stage ({@link LayerSplit#even} when {@code null})
 * @param sharding     which framework runs ZeRO 3 and how ({@link ShardingOptions#defaults} when
 *                     {@code null}; only ZeRO 3 may name another)
 * @param tpCommOverlap Megatron-core's --tp-comm-overlap: the sequence-parallel collectives of the
 *                     dense blocks chunked and pipelined with their GEMMs ({@link TensorParallelOverlap})
 * @param recomputeModules under selective recomputation, the modules Megatron-core's
 *                     {@code recompute_modules} names ({@link RecomputeModule}; empty: the attention
 *                     core, its default); empty otherwise
 * @param allToAll     how MoE token all-to-alls are sent ({@link AllToAllAlgorithm}; {@code null}: auto)
 */
public record TrainingStep(TransformerModel model, Topology topology, Mesh mesh, int zero, int shardGroup,
                           boolean sequenceParallel, ContextParallel cpKind, PipelineSchedule schedule,
                           int microbatches, int microBatch, int seqLen, KernelCosts kernels,
                           LayerCostModel.Recompute recompute, long bucketBytes,
                           boolean overlapGradReduce, boolean blockingSends, int replicas, LayerSplit split,
                           ShardingOptions sharding, boolean tpCommOverlap, Set<RecomputeModule> recomputeModules,
                           AllToAllAlgorithm allToAll) {

    /** A step whose MoE all-to-alls are planned as {@link AllToAllAlgorithm#AUTO} chooses. */
    public TrainingStep(TransformerModel model, Topology topology, Mesh mesh, int zero, int shardGroup,
                        boolean sequenceParallel, ContextParallel cpKind, PipelineSchedule schedule,
                        int microbatches, int microBatch, int seqLen, KernelCosts kernels,
                        LayerCostModel.Recompute recompute, long bucketBytes,
                        boolean overlapGradReduce, boolean blockingSends, int replicas, LayerSplit split,
                        ShardingOptions sharding, boolean tpCommOverlap, Set<RecomputeModule> recomputeModules) {
        this(model, topology, mesh, zero, shardGroup, sequenceParallel, cpKind, schedule, microbatches, microBatch,
                seqLen, kernels, recompute, bucketBytes, overlapGradReduce, blockingSends, replicas, split, sharding,
                tpCommOverlap, recomputeModules, AllToAllAlgorithm.AUTO);
    }

    /** A step whose selective recomputation (if any) replays the attention core only. */
    public TrainingStep(TransformerModel model, Topology topology, Mesh mesh, int zero, int shardGroup,
                        boolean sequenceParallel, ContextParallel cpKind, PipelineSchedule schedule,
                        int microbatches, int microBatch, int seqLen, KernelCosts kernels,
                        LayerCostModel.Recompute recompute, long bucketBytes,
                        boolean overlapGradReduce, boolean blockingSends, int replicas, LayerSplit split,
                        ShardingOptions sharding, boolean tpCommOverlap) {
        this(model, topology, mesh, zero, shardGroup, sequenceParallel, cpKind, schedule, microbatches, microBatch,
                seqLen, kernels, recompute, bucketBytes, overlapGradReduce, blockingSends, replicas, split, sharding,
                tpCommOverlap, Set.of());
    }

    /**
     * Bytes of an activation element on the wire (stage-to-stage sends, TP and CP collectives,
     * expert all-to-alls): bf16, also under FP8, whose GEMMs take and give bf16 tensors
     * (Transformer Engine's FP8 all-gather of sequence-parallel inputs is not modelled).
     */
    static final int ACTIVATION_BYTES = 2;

    /** Bytes of a weight in a ZeRO all-gather: bf16, or fp8 when FP8 weights are gathered as such. */
    int weightGatherBytes() {
        return precision() == Precision.FP8 && kernels.fp8ParamGather() ? 1 : 2;
    }

    /**
     * Megatron-core's default gradient bucket: max(40 M, 1 M x the data-parallel size, context
     * ranks included) parameters (DistributedDataParallel), in bytes of main gradients.
     */
    public static long defaultBucketBytes(int dataParallelRanks, int mainGradBytes) {
        return Math.max(40_000_000L, 1_000_000L * dataParallelRanks) * mainGradBytes;
    }

    /** Megatron-LM's classic bucket: 25 MB. */
    public static final long DEFAULT_BUCKET = 25_000_000L;

    public TrainingStep {
        if (sharding == null) {
            sharding = ShardingOptions.defaults();
        }
        if (allToAll == null) {
            allToAll = AllToAllAlgorithm.AUTO;
        }
        if (allToAll == AllToAllAlgorithm.NODE_LIMITED && (model.experts() == null || model.experts().nodeLimit() < 1)) {
            throw new IllegalArgumentException("a node-limited all-to-all needs a model whose experts have a node "
                    + "limit (nodeLimit >= 1)");
        }
        recomputeModules = LayerCostModel.recomputedModules(recompute, recomputeModules == null ? Set.of()
                : recomputeModules);
        int stages = schedule.placement(mesh.pp(), Math.max(1, microbatches)).stages();
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
        if (seqLen % mesh.cp() != 0) {
            throw new IllegalArgumentException("context parallelism " + mesh.cp() + " must divide the sequence "
                    + seqLen);
        }
        if (mesh.gpus() > topology.deviceCount()) {
            throw new IllegalArgumentException("the layout needs " + mesh.gpus() + " GPUs; the cluster has "
                    + topology.deviceCount());
        }
        if (replicas != mesh.dp() && replicas != 1) {
            throw new IllegalArgumentException("simulate all " + mesh.dp() + " replicas or 1, not " + replicas);
        }
        if (zero < 0 || zero > 3) {
            throw new IllegalArgumentException("ZeRO stage " + zero + " does not exist; use 0, 1, 2 or 3");
        }
        if (mesh.ep() > 1 && (model.experts() == null || model.experts().count() % mesh.ep() != 0)) {
            throw new IllegalArgumentException("expert parallelism " + mesh.ep() + " needs a model whose experts it "
                    + "divides");
        }
        if (mesh.etp() != mesh.tp() && model.experts() == null) {
            throw new IllegalArgumentException("expert TP " + mesh.etp() + " needs a model with experts");
        }
        if ((mesh.ep() > 1 || mesh.etp() != mesh.tp()) && zero == 3) {
            throw new IllegalArgumentException("ZeRO 3 with expert parallelism is not modelled; use ZeRO 0, 1 or 2");
        }
        if (zero != 3 && !sharding.equals(ShardingOptions.defaults())) {
            throw new IllegalArgumentException("a ZeRO-3 implementation's options need ZeRO 3, not " + zero);
        }
        if (zero == 3 && sharding.impl() == Zero3Impl.DEEPSPEED && stages != 1) {
            throw new IllegalArgumentException("DeepSpeed runs ZeRO 3 without pipeline parallelism (its pipeline "
                    + "engine takes ZeRO 0 or 1); the schedule has " + stages + " stages");
        }
        if (tpCommOverlap && mesh.tp() > 1 && !sequenceParallel) {
            throw new IllegalArgumentException("tensor-parallel communication overlap needs sequence parallelism");
        }
        if (shardGroup < 0 || (shardGroup > 0 && (zero == 0 || (mesh.dp() * mesh.cp()) % shardGroup != 0))) {
            throw new IllegalArgumentException("a hybrid shard group of " + shardGroup + " needs ZeRO 1 to 3 and must "
                    + "divide dp x cp = " + mesh.dp() * mesh.cp());
        }
    }

    /**
     * A step without tensor-parallel communication overlap (Megatron-core's default), its ZeRO 3
     * (if any) run as {@link ShardingOptions#defaults}.
     */
    public TrainingStep(TransformerModel model, Topology topology, Mesh mesh, int zero, int shardGroup,
                        boolean sequenceParallel, ContextParallel cpKind, PipelineSchedule schedule,
                        int microbatches, int microBatch, int seqLen, KernelCosts kernels,
                        LayerCostModel.Recompute recompute, long bucketBytes,
                        boolean overlapGradReduce, boolean blockingSends, int replicas, LayerSplit split) {
        this(model, topology, mesh, zero, shardGroup, sequenceParallel, cpKind, schedule, microbatches, microBatch,
                seqLen, kernels, recompute, bucketBytes, overlapGradReduce, blockingSends, replicas, split, null, false);
    }

    /** This step with ZeRO 3 run as {@code options}. */
    public TrainingStep withSharding(ShardingOptions options) {
        return new TrainingStep(model, topology, mesh, zero, shardGroup, sequenceParallel, cpKind, schedule,
                microbatches, microBatch, seqLen, kernels, recompute, bucketBytes, overlapGradReduce, blockingSends,
                replicas, split, options, tpCommOverlap, recomputeModules, allToAll);
    }

    /**
     * This step with {@code count} data-parallel replicas simulated task by task (1, or all of
     * them); a one-replica copy is how the work of a large step is counted before it is built.
     */
    public TrainingStep withReplicas(int count) {
        return new TrainingStep(model, topology, mesh, zero, shardGroup, sequenceParallel, cpKind, schedule,
                microbatches, microBatch, seqLen, kernels, recompute, bucketBytes, overlapGradReduce, blockingSends,
                count, split, sharding, tpCommOverlap, recomputeModules, allToAll);
    }

    /** This step with its MoE all-to-alls sent as {@code algorithm}. */
    public TrainingStep withAllToAll(AllToAllAlgorithm algorithm) {
        return new TrainingStep(model, topology, mesh, zero, shardGroup, sequenceParallel, cpKind, schedule,
                microbatches, microBatch, seqLen, kernels, recompute, bucketBytes, overlapGradReduce, blockingSends,
                replicas, split, sharding, tpCommOverlap, recomputeModules, algorithm);
    }

    /** Bytes of a gradient element in ZeRO 3's reduce-scatters ({@link ShardingOptions#reduceBytes}). */
    int shardedGradReduceBytes() {
        return sharding.reduceBytes(kernels.mainGradBytes());
    }

    /**
     * What the step's communication tasks take from the compute beside them on {@code graph}
     * (the graph this step built), from the device profile; none when the profile does not say.
     */
    public Interference interference(TaskGraph graph) {
        CommKernels k = device().commKernels();
        return k == null ? Interference.NONE : new CommInterference(k, graph);
    }

    /**
     * A dense step with the default mesh order, all-gather CP and full sharding, on the bundled
     * profile of the topology's GPU (delayed scaling under FP8, fused gradient accumulation).
     */
    public TrainingStep(TransformerModel model, Topology topology, int tp, int pp, int dp, int zero,
                        boolean sequenceParallel, PipelineSchedule schedule, int microbatches, int microBatch,
                        int seqLen, Precision precision, LayerCostModel.Recompute recompute,
                        AttentionImpl attention, long bucketBytes, boolean overlapGradReduce,
                        boolean blockingSends, int replicas, LayerSplit split, int cp) {
        this(model, topology, new Mesh(tp, cp, pp, dp), zero, 0, sequenceParallel, ContextParallel.ALL_GATHER,
                schedule, microbatches, microBatch, seqLen, new KernelCosts(DeviceProfiles.bundled(
                        topology.accelerator().name()), precision, Fp8Recipe.DELAYED, attention, true, false, 4), recompute,
                bucketBytes, overlapGradReduce, blockingSends, replicas, split);
    }

    public int tp() {
        return mesh.tp();
    }

    public int cp() {
        return mesh.cp();
    }

    public int pp() {
        return mesh.pp();
    }

    public int dp() {
        return mesh.dp();
    }

    public int ep() {
        return mesh.ep();
    }

    /** Ranks ZeRO shards dense weights over: the shard group, or every CP and DP rank. */
    public int shardSize() {
        return shardGroup == 0 ? dp() * cp() : shardGroup;
    }

    /** Expert tensor-parallel size. */
    public int etp() {
        return mesh.etp();
    }

    /** Ranks ZeRO shards expert weights over: the expert data-parallel group (edp GPUs of a stage). */
    public int expertShardSize() {
        return mesh.experts().edp();
    }

    /**
     * Whether expert weights are held and reduced apart from the dense ones: with expert
     * parallelism or an expert TP of their own. Otherwise every GPU of a TP rank holds all the
     * experts' TP shards and reduces them with the dense gradients.
     */
    public boolean separateExperts() {
        return mesh.ep() > 1 || mesh.etp() != mesh.tp();
    }

    /** Device of (tensor rank, pipeline rank, data-parallel rank), context rank 0. */
    public int device(int t, int p, int d) {
        return mesh.device(t, 0, p, d);
    }

    /** Device of (tensor rank, context rank, pipeline rank, data-parallel rank). */
    public int device(int t, int c, int p, int d) {
        return mesh.device(t, c, p, d);
    }

    /** Where a GPU sits in the mesh. */
    public Mesh.Coordinates coordinates(int device) {
        return mesh.coordinates(device);
    }

    /** Whether a GPU belongs to a replica simulated task by task. */
    public boolean simulated(int device) {
        return device < mesh.gpus() && mesh.coordinates(device).dp() < replicas;
    }

    /** Matrix-multiply precision. */
    public Precision precision() {
        return kernels.precision();
    }

    /** The attention core's implementation. */
    public AttentionImpl attention() {
        return kernels.attention();
    }

    /** The GPUs' device profile. */
    public DeviceProfile device() {
        return kernels.device();
    }

    /** Per-stage cost model. */
    public LayerCostModel layerCost() {
        return new LayerCostModel(model, kernels, tp(), sequenceParallel, microBatch, seqLen, recompute, cp(), ep(), etp(),
                recomputeModules);
    }

    /** Stages on a microbatch's path. */
    public int stages() {
        return schedule.placement(pp(), microbatches).stages();
    }

    /** The parameters one GPU holds, by layer and stage. */
    public GpuParameters parameters() {
        return new GpuParameters(model, tp(), ep(), etp(), split);
    }

    /** Parameters one GPU holds for stage {@code stage} ({@link GpuParameters#stage}). */
    public double stageParams(int stage) {
        return parameters().stage(stage);
    }

    /** Of {@link #stageParams}, the expert weights ({@link GpuParameters#stageExperts}). */
    public double stageExpertParams(int stage) {
        return parameters().stageExperts(stage);
    }

    /**
     * A built step, or several consecutive ones.
     *
     * @param graph      the task graph over all tp x cp x pp x dp devices
     * @param pipelines  activation bookkeeping per data-parallel replica, over all steps
     * @param firstTasks the id of each step's first task (steps own consecutive task ids)
     */
    public record Built(TaskGraph graph, List<PipelineTasks> pipelines, int[] firstTasks) {
        /** Steps in the graph. */
        public int steps() {
            return firstTasks.length;
        }
    }

    /** The step's task graph ({@link StepBuilder}). */
    public Built build() {
        return new StepBuilder(this).build();
    }

    /** The task graph of consecutive steps ({@link StepBuilder}, {@link StepSequence}). */
    public Built build(StepSequence sequence) {
        return new StepBuilder(this, sequence).build();
    }
}
