package org.clustersim.strategies.training;

import java.util.List;
import java.util.Set;

import org.clustersim.core.engine.Interference;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.CommKernels;
import org.clustersim.strategies.device.DeviceProfile;
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
 * <p>A step is put together by {@link LayoutBuilder} ({@link #builder}); the rules that tie its
 * settings to one another are {@link LayoutRules}, checked here whichever way it was made.
 *
 * @param model     the transformer
 * @param topology  the cluster
 * @param layout    the parallel layout: mesh, ZeRO sharding, sequence and context parallelism,
 *                  communication options
 * @param pipelines the schedule, the layer split, blocking sends and the replicas simulated
 * @param batch     microbatches per replica, sequences per microbatch, tokens per sequence
 * @param numerics  what each kernel costs (device profile, GEMM precision, FP8 recipe, attention,
 *                  gradient and moment dtypes) and what is recomputed
 * @param execution CUDA graphs and activation offload to the host ({@link Execution#EAGER}: neither)
 */
public record TrainingStep(TransformerModel model, Topology topology, Layout layout, Pipelines pipelines,
                           BatchShape batch, Numerics numerics, Execution execution) {

    /** A step launched eagerly, nothing offloaded. */
    public TrainingStep(TransformerModel model, Topology topology, Layout layout, Pipelines pipelines,
                        BatchShape batch, Numerics numerics) {
        this(model, topology, layout, pipelines, batch, numerics, Execution.EAGER);
    }

    /** A builder of a step of {@code model} on {@code topology}, every other setting at its default. */
    public static LayoutBuilder builder(TransformerModel model, Topology topology) {
        return new LayoutBuilder(model, topology);
    }

    /**
     * Bytes of an activation element on the wire (stage-to-stage sends, TP and CP collectives,
     * expert all-to-alls): bf16, also under FP8, whose GEMMs take and give bf16 tensors
     * (Transformer Engine's FP8 all-gather of sequence-parallel inputs is not modelled).
     */
    static final int ACTIVATION_BYTES = 2;

    /**
     * Bytes of a weight in a ZeRO all-gather: bf16, or as the low-precision recipe gathers them
     * ({@link KernelCosts#weightGatherBytes}).
     */
    double weightGatherBytes() {
        return kernels().weightGatherBytes();
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
        LayoutRules.require(model, topology, layout, pipelines, batch);
        if (pipelines.split() == null) {
            pipelines = pipelines.withSplit(LayerSplit.even(model.layers(),
                    pipelines.schedule().placement(layout.mesh().pp(), Math.max(1, batch.microbatches())).stages()));
        }
        if (execution == null) {
            execution = Execution.EAGER;
        }
        List<LayoutRules.Violation> offload = new java.util.ArrayList<>();
        LayoutRules.cpuOffload(offload, execution.offloadLayers(), layout.mesh().pp(), pipelines.split(),
                numerics.recompute());
        if (!offload.isEmpty()) {
            throw new IllegalArgumentException(offload.get(0).message());
        }
    }

    /** A builder holding every setting of this step, to change some of them. */
    public LayoutBuilder toBuilder() {
        return builder(model, topology).layout(layout).rest(this);
    }

    /** This step with ZeRO 3 run as {@code options}. */
    public TrainingStep withSharding(ShardingOptions options) {
        return toBuilder().sharding(options).build();
    }

    /**
     * This step with {@code count} data-parallel replicas simulated task by task (1, or all of
     * them); a one-replica copy is how the work of a large step is counted before it is built.
     */
    public TrainingStep withReplicas(int count) {
        return toBuilder().replicas(count).build();
    }

    /** This step with its MoE all-to-alls sent as {@code algorithm}. */
    public TrainingStep withAllToAll(AllToAllAlgorithm algorithm) {
        return toBuilder().allToAll(algorithm).build();
    }

    /** Bytes of a gradient element in ZeRO 3's reduce-scatters ({@link ShardingOptions#reduceBytes}). */
    int shardedGradReduceBytes() {
        return sharding().reduceBytes(kernels().mainGradBytes());
    }

    /**
     * What the step's communication tasks take from the compute beside them on {@code graph}
     * (the graph this step built), from the device profile; none when the profile does not say.
     */
    public Interference interference(TaskGraph graph) {
        CommKernels k = device().commKernels();
        return k == null ? Interference.NONE : new CommInterference(k, graph);
    }

    /** The device mesh: TP, CP, PP, DP (and EP inside DP) sizes and their order. */
    public Mesh mesh() {
        return layout.mesh();
    }

    /** ZeRO stage (0 to 3). */
    public int zero() {
        return layout.zero().stage();
    }

    /** Ranks ZeRO shards over (hybrid sharding), 0 for all of them. */
    public int shardGroup() {
        return layout.zero().shardGroup();
    }

    /** Which framework runs ZeRO 3 and how. */
    public ShardingOptions sharding() {
        return layout.zero().options();
    }

    /** Megatron sequence parallelism. */
    public boolean sequenceParallel() {
        return layout.sequenceParallel();
    }

    /** How context parallelism exchanges keys and values. */
    public ContextParallel cpKind() {
        return layout.cpKind();
    }

    /** Gradient bucket size. */
    public long bucketBytes() {
        return layout.comm().bucketBytes();
    }

    /** Whether each gradient bucket is reduced as soon as its gradients exist. */
    public boolean overlapGradReduce() {
        return layout.comm().overlapGradReduce();
    }

    /** Megatron-core's --tp-comm-overlap ({@link TensorParallelOverlap}). */
    public boolean tpCommOverlap() {
        return layout.comm().tpCommOverlap();
    }

    /** Whether XLA pipelines the cross-slice (DCN) gradient reductions across layers ({@link Communication#dcnPipelined}). */
    public boolean dcnPipelined() {
        return layout.comm().dcnPipelined();
    }

    /** How MoE token all-to-alls are sent. */
    public AllToAllAlgorithm allToAll() {
        return layout.comm().allToAll();
    }

    /** Pipeline schedule. */
    public PipelineSchedule schedule() {
        return pipelines.schedule();
    }

    /** Layers per stage. */
    public LayerSplit split() {
        return pipelines.split();
    }

    /** Whether a rank waits for its sends before its next action. */
    public boolean blockingSends() {
        return pipelines.blockingSends();
    }

    /** Data-parallel replicas simulated task by task: all, or 1. */
    public int replicas() {
        return pipelines.replicas();
    }

    /** Microbatches per replica m. */
    public int microbatches() {
        return batch.microbatches();
    }

    /** Sequences per microbatch b. */
    public int microBatch() {
        return batch.microBatch();
    }

    /** Tokens per sequence s. */
    public int seqLen() {
        return batch.seqLen();
    }

    /**
     * What each kernel costs: replayed from CUDA graphs under full-step graphs
     * ({@link KernelCosts#graphed}), launched eagerly otherwise.
     */
    public KernelCosts kernels() {
        return execution.graphs().everything() ? numerics.kernels().graphed() : numerics.kernels();
    }

    /** What each transformer layer's kernels cost: graph replays under per-layer or full-step graphs. */
    public KernelCosts layerKernels() {
        return execution.graphs().layers() ? numerics.kernels().graphed() : numerics.kernels();
    }

    /** Activation recomputation. */
    public LayerCostModel.Recompute recompute() {
        return numerics.recompute();
    }

    /** Under selective recomputation, the modules recomputed. */
    public Set<RecomputeModule> recomputeModules() {
        return numerics.recomputeModules();
    }

    public int tp() {
        return mesh().tp();
    }

    public int cp() {
        return mesh().cp();
    }

    public int pp() {
        return mesh().pp();
    }

    public int dp() {
        return mesh().dp();
    }

    public int ep() {
        return mesh().ep();
    }

    /** Ranks ZeRO shards dense weights over: the shard group, or every CP and DP rank. */
    public int shardSize() {
        return shardGroup() == 0 ? dp() * cp() : shardGroup();
    }

    /** Expert tensor-parallel size. */
    public int etp() {
        return mesh().etp();
    }

    /** Ranks ZeRO shards expert weights over: the expert data-parallel group (edp GPUs of a stage). */
    public int expertShardSize() {
        return mesh().experts().edp();
    }

    /**
     * Whether expert weights are held and reduced apart from the dense ones: with expert
     * parallelism or an expert TP of their own. Otherwise every GPU of a TP rank holds all the
     * experts' TP shards and reduces them with the dense gradients.
     */
    public boolean separateExperts() {
        return mesh().ep() > 1 || mesh().etp() != mesh().tp();
    }

    /** Device of (tensor rank, pipeline rank, data-parallel rank), context rank 0. */
    public int device(int t, int p, int d) {
        return mesh().device(t, 0, p, d);
    }

    /** Device of (tensor rank, context rank, pipeline rank, data-parallel rank). */
    public int device(int t, int c, int p, int d) {
        return mesh().device(t, c, p, d);
    }

    /** Where a GPU sits in the mesh(). */
    public Mesh.Coordinates coordinates(int device) {
        return mesh().coordinates(device);
    }

    /** Whether a GPU belongs to a replica simulated task by task. */
    public boolean simulated(int device) {
        return device < mesh().gpus() && mesh().coordinates(device).dp() < replicas();
    }

    /** Matrix-multiply precision. */
    public Precision precision() {
        return kernels().precision();
    }

    /** The attention core's implementation. */
    public AttentionImpl attention() {
        return kernels().attention();
    }

    /** The GPUs' device profile. */
    public DeviceProfile device() {
        return kernels().device();
    }

    /** Per-stage cost model. */
    public LayerCostModel layerCost() {
        return new LayerCostModel(model, layerKernels(), tp(), sequenceParallel(), microBatch(), seqLen(), recompute(), cp(),
                ep(), etp(), recomputeModules(), layout.comm().moeDispatcher());
    }

    /**
     * The cost model of the work around the layers (embedding, logits and loss): the layers' own
     * under per-layer graphs is eager here, as Megatron-core captures only the layers.
     */
    public LayerCostModel outerCost() {
        return new LayerCostModel(model, kernels(), tp(), sequenceParallel(), microBatch(), seqLen(), recompute(), cp(),
                ep(), etp(), recomputeModules(), layout.comm().moeDispatcher());
    }

    /** Stages on a microbatch's path. */
    public int stages() {
        return schedule().placement(pp(), microbatches()).stages();
    }

    /** The parameters one GPU holds, by layer and stage. */
    public GpuParameters parameters() {
        return new GpuParameters(model, tp(), ep(), etp(), split());
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

    /**
     * As {@link #build(StepSequence)}; without {@code taskNames} the graph keeps no task names
     * ({@link TaskGraph#builder(boolean)}): the same tasks and timeline, less memory.
     */
    public Built build(StepSequence sequence, boolean taskNames) {
        return new StepBuilder(this, sequence, true, taskNames).build();
    }
}
