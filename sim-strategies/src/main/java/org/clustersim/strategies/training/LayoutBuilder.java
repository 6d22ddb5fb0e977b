package org.clustersim.strategies.training;

import java.util.List;
import java.util.Set;

import org.clustersim.strategies.cost.Bf16Layers;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.MoeDispatcher;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.Topology;

/**
 * The one way a {@link TrainingStep} is put together: set what differs from the defaults, then
 * {@link #build()}, which checks {@link LayoutRules}. The defaults: one GPU (every size 1, TP
 * innermost), no ZeRO, no sequence or context parallelism, Megatron-LM's classic 25 MB bucket
 * reduced during the backward, 1F1B with one microbatch of one 2048-token sequence and an even
 * layer split, asynchronous sends, every replica simulated, bf16 kernels on the bundled profile
 * of the topology's GPU (its default attention), no recomputation.
 */
public final class LayoutBuilder {
    private final TransformerModel model;
    private final Topology topology;
    // the settings: package-private, LayoutRules reads them before a mesh can be laid out
    int tp = 1;
    int cp = 1;
    int pp = 1;
    int dp = 1;
    int ep = 1;
    int etp;
    List<Mesh.Dim> order = Mesh.DEFAULT_ORDER;
    int zero;
    int shardGroup;
    ShardingOptions sharding;
    boolean sequenceParallel;
    ContextParallel cpKind = ContextParallel.ALL_GATHER;
    long bucketBytes = TrainingStep.DEFAULT_BUCKET;
    boolean overlapGradReduce = true;
    boolean tpCommOverlap;
    boolean dcnPipelined = true;
    AllToAllAlgorithm allToAll = AllToAllAlgorithm.AUTO;
    MoeDispatcher moeDispatcher = MoeDispatcher.ALLTOALL;
    PipelineSchedule schedule = ScheduleKind.ONE_F_ONE_B.schedule(1);
    LayerSplit split;
    boolean blockingSends;
    int replicas;
    int microbatches = 1;
    int microBatch = 1;
    int seqLen = 2048;
    KernelCosts kernels;
    LayerCostModel.Recompute recompute = LayerCostModel.Recompute.NONE;
    Set<RecomputeModule> recomputeModules = Set.of();
    XlaRemat xlaRemat;
    Bf16Layers bf16Layers = Bf16Layers.NONE;
    Execution execution = Execution.EAGER;

    LayoutBuilder(TransformerModel model, Topology topology) {
        this.model = model;
        this.topology = topology;
    }

    /** Sizes and order of the device mesh. */
    public LayoutBuilder mesh(Mesh mesh) {
        tp = mesh.tp();
        cp = mesh.cp();
        pp = mesh.pp();
        dp = mesh.dp();
        ep = mesh.ep();
        etp = mesh.etp();
        order = mesh.order();
        return this;
    }

    /** Tensor, context, pipeline and data parallelism (the mesh order and the experts' sizes kept). */
    public LayoutBuilder sizes(int tp, int cp, int pp, int dp) {
        this.tp = tp;
        this.cp = cp;
        this.pp = pp;
        this.dp = dp;
        return this;
    }

    /** Expert parallelism and expert TP (0: tp, Megatron-core's default), folded over each stage's GPUs. */
    public LayoutBuilder experts(int ep, int etp) {
        this.ep = ep;
        this.etp = etp;
        return this;
    }

    /** Mesh dimensions, innermost first. */
    public LayoutBuilder order(List<Mesh.Dim> order) {
        this.order = order;
        return this;
    }

    public LayoutBuilder zero(int stage) {
        this.zero = stage;
        return this;
    }

    /** Ranks ZeRO shards over (hybrid sharding); 0: all of them. */
    public LayoutBuilder shardGroup(int ranks) {
        this.shardGroup = ranks;
        return this;
    }

    /** Which framework runs ZeRO 3 and how. */
    public LayoutBuilder sharding(ShardingOptions options) {
        this.sharding = options;
        return this;
    }

    public LayoutBuilder sequenceParallel(boolean on) {
        this.sequenceParallel = on;
        return this;
    }

    public LayoutBuilder cpKind(ContextParallel kind) {
        this.cpKind = kind;
        return this;
    }

    public LayoutBuilder bucketBytes(long bytes) {
        this.bucketBytes = bytes;
        return this;
    }

    public LayoutBuilder overlapGradReduce(boolean on) {
        this.overlapGradReduce = on;
        return this;
    }

    public LayoutBuilder tpCommOverlap(boolean on) {
        this.tpCommOverlap = on;
        return this;
    }

    /** XLA's cross-slice gradient reductions pipelined across the scanned layers ({@link Communication#dcnPipelined}). */
    public LayoutBuilder dcnPipelined(boolean on) {
        this.dcnPipelined = on;
        return this;
    }

    public LayoutBuilder allToAll(AllToAllAlgorithm algorithm) {
        this.allToAll = algorithm;
        return this;
    }

    /** Megatron-core's MoE token dispatcher ({@link Communication#moeDispatcher}). */
    public LayoutBuilder moeDispatcher(MoeDispatcher dispatcher) {
        this.moeDispatcher = dispatcher;
        return this;
    }

    /** All parallel-layout settings at once, as {@link #layout()} gives them. */
    public LayoutBuilder layout(Layout layout) {
        mesh(layout.mesh());
        zero = layout.zero().stage();
        shardGroup = layout.zero().shardGroup();
        sharding = layout.zero().options();
        sequenceParallel = layout.sequenceParallel();
        cpKind = layout.cpKind();
        bucketBytes = layout.comm().bucketBytes();
        overlapGradReduce = layout.comm().overlapGradReduce();
        tpCommOverlap = layout.comm().tpCommOverlap();
        allToAll = layout.comm().allToAll();
        dcnPipelined = layout.comm().dcnPipelined();
        moeDispatcher = layout.comm().moeDispatcher();
        return this;
    }

    public LayoutBuilder schedule(PipelineSchedule schedule) {
        this.schedule = schedule;
        return this;
    }

    /** Layers per stage; {@code null}: an even split. */
    public LayoutBuilder split(LayerSplit split) {
        this.split = split;
        return this;
    }

    public LayoutBuilder blockingSends(boolean on) {
        this.blockingSends = on;
        return this;
    }

    /** Data-parallel replicas simulated task by task: 1, or all of them (the default). */
    public LayoutBuilder replicas(int count) {
        this.replicas = count;
        return this;
    }

    /** Microbatches per replica, sequences per microbatch, tokens per sequence. */
    public LayoutBuilder batch(int microbatches, int microBatch, int seqLen) {
        this.microbatches = microbatches;
        this.microBatch = microBatch;
        this.seqLen = seqLen;
        return this;
    }

    public LayoutBuilder kernels(KernelCosts costs) {
        this.kernels = costs;
        return this;
    }

    /**
     * Kernels on the bundled profile of the topology's GPU at {@code precision} with
     * {@code attention}: delayed FP8 scaling, fused accumulation into fp32 main gradients.
     */
    public LayoutBuilder kernels(Precision precision, AttentionImpl attention) {
        return kernels(new KernelCosts(DeviceProfiles.bundled(topology.accelerator().name()), precision,
                Fp8Recipe.DELAYED, attention, true, false, 4));
    }

    /** The layers a low-precision recipe keeps in bf16 (none by default). */
    public LayoutBuilder bf16Layers(Bf16Layers layers) {
        this.bf16Layers = layers;
        return this;
    }

    public LayoutBuilder recompute(LayerCostModel.Recompute policy) {
        this.recompute = policy;
        return this;
    }

    /** Under selective recomputation, the modules recomputed (empty: the attention core). */
    public LayoutBuilder recomputeModules(Set<RecomputeModule> modules) {
        this.recomputeModules = modules;
        return this;
    }

    /**
     * The MaxText remat policy XLA keeps memory by ({@link XlaMemory}): set for a step laid out
     * on a JAX mesh; null (the default) for Megatron's picture.
     */
    public LayoutBuilder xlaRemat(XlaRemat policy) {
        this.xlaRemat = policy;
        return this;
    }

    /** CUDA graphs and activation offload ({@link Execution}; default: eager, nothing offloaded). */
    public LayoutBuilder execution(Execution execution) {
        this.execution = execution;
        return this;
    }

    /** The pipelines, batch and numerics of {@code step} (its layout is set apart, by {@link #layout(Layout)}). */
    LayoutBuilder rest(TrainingStep step) {
        Pipelines p = step.pipelines();
        schedule = p.schedule();
        split = p.split();
        blockingSends = p.blockingSends();
        replicas = p.replicas();
        batch(step.microbatches(), step.microBatch(), step.seqLen());
        kernels = step.numerics().kernels();
        execution = step.execution();
        recompute = step.recompute();
        recomputeModules = step.recomputeModules();
        xlaRemat = step.numerics().xlaRemat();
        bf16Layers = step.numerics().bf16Layers();
        return this;
    }

    /** Expert TP as set, or tp. */
    int etp() {
        return etp == 0 ? tp : etp;
    }

    /**
     * The parallel layout as set.
     *
     * @throws IllegalArgumentException when the mesh cannot be laid out ({@link LayoutRules#layout} says why)
     */
    public Layout layout() {
        return new Layout(new Mesh(tp, cp, pp, dp, ep, etp(), order),
                new ZeroSharding(zero, shardGroup, sharding), sequenceParallel, cpKind,
                new Communication(bucketBytes, overlapGradReduce, tpCommOverlap, allToAll, dcnPipelined,
                        moeDispatcher));
    }

    /**
     * The step.
     *
     * @throws IllegalArgumentException with the first broken {@link LayoutRules rule}
     */
    public TrainingStep build() {
        if (model == null || topology == null) {
            throw new IllegalStateException("a layout builder from Layout.builder() builds layouts only; use "
                    + "TrainingStep.builder(model, topology) for a step");
        }
        return new TrainingStep(model, topology, layout(),
                new Pipelines(schedule, split, blockingSends, replicas == 0 ? dp : replicas),
                new BatchShape(microbatches, microBatch, seqLen),
                new Numerics(kernels != null ? kernels : KernelCosts.of(DeviceProfiles.bundled(
                        topology.accelerator().name()), Precision.BF16), recompute, recomputeModules, xlaRemat,
                        bf16Layers),
                execution);
    }
}
