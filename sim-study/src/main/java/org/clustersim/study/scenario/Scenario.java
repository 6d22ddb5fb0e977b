package org.clustersim.study.scenario;

import org.clustersim.core.input.InputFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.clustersim.strategies.training.ContextParallel;
import org.clustersim.strategies.training.Execution;
import org.clustersim.strategies.training.LayerSplit;
import org.clustersim.strategies.training.Layout;
import org.clustersim.strategies.training.AllToAllAlgorithm;
import org.clustersim.strategies.training.Mesh;
import org.clustersim.strategies.training.ShardingOptions;
import org.clustersim.strategies.training.StepSequence;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.strategies.training.XlaRemat;
import org.clustersim.strategies.cost.Bf16Layers;
import org.clustersim.strategies.cost.CudaGraphs;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.collective.FittedCommTuning;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.CombinedOneFOneB;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.core.Simulation;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.HostAttachment;
import org.clustersim.topology.Topology;

/**
 * A validated scenario: everything needed to simulate one training step, or several back to back. Built only by
 * {@link ScenarioReader}, which guarantees the values are consistent.
 *
 * @param name        scenario name (the file's stem unless given)
 * @param source      the file it was read from
 * @param cluster     the cluster
 * @param model       the model
 * @param device      the GPU's device profile (bundled, the scenario's own file, with overrides)
 * @param attention   attention implementation
 * @param blockingSends pipeline sends block the sending rank until they complete
 * @param parallelism the parallel layout
 * @param schedule    the pipeline schedule
 * @param training    batch, sequence and precision settings
 * @param fidelity    network model
 * @param routing     how equal-cost paths are chosen
 * @param faults      link, switch, NIC and GPU faults
 * @param allReplicas simulate every data-parallel replica (else one, standing for all)
 * @param allowOom    simulate even when a GPU's peak memory exceeds its HBM
 * @param interference slow compute while communication kernels run beside it (the device
 *                    profile's communication section); off: overlap is free
 * @param steps       consecutive training steps to simulate; summaries report the last
 * @param kernel      the discrete-event kernel that runs the step (the same result on either)
 * @param output      output paths named in the file
 * @param host        the GPUs' host link and memory (activation offload), or null where none is known
 */
public record Scenario(String name, Path source, ClusterSpec cluster, DeviceProfile device, TransformerModel model,
                       AttentionImpl attention, boolean blockingSends,
                       Parallelism parallelism, ScheduleKind schedule, Training training, Simulation.Fidelity fidelity,
                       Simulation.Routing routing, List<Fault> faults, boolean allReplicas, boolean allowOom,
                       boolean interference, int steps, Simulation.Kernel kernel, Output output,
                       HostAttachment host) {

    public Scenario {
        faults = List.copyOf(faults);
    }

    /** The same scenario simulating {@code n} steps back to back (a shared cluster's automatic step counts). */
    public Scenario withSteps(int n) {
        return new Scenario(name, source, cluster, device, model, attention, blockingSends, parallelism, schedule,
                training, fidelity, routing, faults, allReplicas, allowOom, interference, n, kernel, output, host);
    }

    /**
     * The faults as simulation events on {@code topology}.
     *
     * @throws InputFileException naming each fault whose target does not exist, with the nearest names
     */
    public FaultEvents faultEvents(Topology topology) {
        return FaultEvents.resolve(faults, topology, source);
    }

    /**
     * The parallel layout as the scenario gives it: the step's {@link Layout} (built by
     * {@link Layout#builder()}, its rules {@link org.clustersim.strategies.training.LayoutRules}) and
     * what the scenario adds around it. The accessors below name the layout's parts as the file does.
     *
     * @param layout mesh, ZeRO sharding, sequence and context parallelism, communication options
     * @param vp model chunks per rank: v of the interleaved schedule, 2 for ZB-V and DualPipeV, else 1
     * @param layersPerStage layers of each stage, or {@code null} for an even split
     * @param overlapParamGather with ZeRO 1 or 2, all-gather updated weights per bucket ahead of the next
     *                   forward (Megatron-core's --overlap-param-gather) instead of after the optimizer
     * @param alignParamGather with overlapParamGather under the interleaved schedule, Megatron-core's
     *                   align_param_gather (default on, as in Megatron-LM): the schedule dispatches each
     *                   chunk's gathers ({@link org.clustersim.strategies.training.StepSequence})
     * @param overlapParamGatherWithOptimizerStep with overlapParamGather under the interleaved schedule,
     *                   the first chunk's gather dispatched inside the optimizer step
     * @param overlapMoeExpertParallelComm Megatron-core's --overlap-moe-expert-parallel-comm: the
     *                   combined 1F1B schedule ({@link CombinedOneFOneB}), one microbatch's forward run with
     *                   another's backward so that each one's all-to-alls run under the other's compute
     */
    public record Parallelism(Layout layout, int vp, int[] layersPerStage, boolean overlapParamGather,
                              boolean alignParamGather, boolean overlapParamGatherWithOptimizerStep,
                              boolean overlapMoeExpertParallelComm) {
        /** Gathers aligned where the schedule aligns them, none with the optimizer step. */
        public Parallelism(Layout layout, int vp, int[] layersPerStage, boolean overlapParamGather,
                           boolean overlapMoeExpertParallelComm) {
            this(layout, vp, layersPerStage, overlapParamGather, true, false, overlapMoeExpertParallelComm);
        }

        /** GPUs the layout occupies: tp x cp x pp x dp. */
        public int gpus() {
            return layout.mesh().gpus();
        }
















    }

    /**
     * Batch and numerics.
     *
     * @param globalBatch sequences per optimizer step
     * @param microBatch  sequences per microbatch
     * @param seqLen      tokens per sequence
     * @param precision   matrix-multiply precision
     * @param fp8Recipe   how FP8 scales its tensors (meaningful with precision fp8)
     * @param recompute   activation recomputation
     * @param gradAccumulationFusion weight-gradient GEMMs accumulate into the fp32 main gradient
     * @param fp8ParamGather ZeRO gathers FP8 weights (with precision fp8)
     * @param mainGradBytes bytes of a main-gradient element (4 fp32, 2 bf16 or fp16)
     * @param recomputeModules under selective recomputation, the modules recomputed (empty: the
     *                   attention core, Megatron-core's default)
     * @param adamMomentBytes bytes of each Adam moment (4 fp32, 2 bf16 under the precision-aware optimizer)
     * @param bf16Layers  the layers a low-precision recipe keeps in bf16
     * @param cpuOffloadLayers layers of each stage whose activations go to host memory (0: none)
     * @param cudaGraphs which kernels replay from CUDA graphs
     */
    public record Training(int globalBatch, int microBatch, int seqLen, Precision precision, Fp8Recipe fp8Recipe,
                           Recompute recompute, boolean gradAccumulationFusion, boolean fp8ParamGather,
                           int mainGradBytes, Set<RecomputeModule> recomputeModules, int adamMomentBytes,
                           XlaRemat xlaRemat, Bf16Layers bf16Layers, int cpuOffloadLayers, CudaGraphs cudaGraphs) {
        /** The same settings with XLA keeping memory by {@code policy} (a mesh's step). */
        public Training withXlaRemat(XlaRemat policy) {
            return new Training(globalBatch, microBatch, seqLen, precision, fp8Recipe, recompute,
                    gradAccumulationFusion, fp8ParamGather, mainGradBytes, recomputeModules, adamMomentBytes, policy,
                    bf16Layers, cpuOffloadLayers, cudaGraphs);
        }
    }

    /** Activation recomputation policy. */
    public enum Recompute {
        NONE, SELECTIVE, FULL;

        /** The cost model's form of the policy. */
        public LayerCostModel.Recompute cost() {
            return LayerCostModel.Recompute.valueOf(name());
        }
    }

    /**
     * Output paths given in the file; command-line flags take precedence.
     *
     * @param trace   Chrome trace path
     * @param summary JSON summary path
     * @param linkCounters whether the trace carries a throughput track per link
     */
    public record Output(Optional<String> trace, Optional<String> summary, boolean linkCounters) {
    }

    /**
     * Model FLOPs of one step: three times the model's forward over every sequence (Megatron-LM's
     * count; MoE layers count their active weights). The numerator of MFU.
     */
    public double modelFlopsPerStep() {
        return 3.0 * training.globalBatch() * model.modelForwardFlops(1, training.seqLen());
    }

    /** Microbatches per step per pipeline: globalBatch / (microBatch x dp). */
    public int microbatches() {
        return training.globalBatch() / (training.microBatch() * parallelism.layout().mesh().dp());
    }

    /** What each kernel costs on this cluster's GPUs with this scenario's numerics. */
    public KernelCosts kernelCosts() {
        return new KernelCosts(device, training.precision(), training.fp8Recipe(), attention,
                training.gradAccumulationFusion(), training.fp8ParamGather(), training.mainGradBytes(),
                training.adamMomentBytes());
    }

    /** The steps to simulate back to back and how each step's weight update reaches the next. */
    public StepSequence stepSequence() {
        return new StepSequence(steps, parallelism.overlapParamGather(), parallelism.alignParamGather(),
                parallelism.overlapParamGatherWithOptimizerStep());
    }

    /**
     * The pipeline schedule as run: the named one, or with the MoE all-to-all overlap Megatron-core's
     * combined 1F1B form of it.
     */
    public PipelineSchedule pipelineSchedule() {
        PipelineSchedule base = schedule.schedule(parallelism.vp());
        return parallelism.overlapMoeExpertParallelComm() ? new CombinedOneFOneB(base) : base;
    }

    /**
     * The cluster built, its collective constants fitted to the device profile's
     * {@code collectives} entries ({@link FittedCommTuning}): the profile is where a chip's
     * measured collective behaviour lives.
     */
    public Topology topology() {
        Topology built = cluster.build();
        return device == null ? built : FittedCommTuning.over(built, device.collectives());
    }

    /** The training step this scenario describes. */
    public TrainingStep trainingStep() {
        return trainingStep(topology());
    }

    /**
     * The training step this scenario describes on {@code topology}, this scenario's cluster
     * already built ({@link #topology()}): what a plan's layouts share.
     */
    public TrainingStep trainingStep(Topology topology) {
        return trainingStep(topology, kernelCosts());
    }

    /**
     * The training step on {@code topology} with {@code kernels} (this scenario's
     * {@link #kernelCosts()}, made once): what a plan's layouts share, so that what they share
     * is recognised as the same.
     */
    public TrainingStep trainingStep(Topology topology, KernelCosts kernels) {
        Parallelism par = parallelism;
        return TrainingStep.builder(model, topology).layout(par.layout())
                .schedule(pipelineSchedule()).split(par.layersPerStage() == null ? null
                        : LayerSplit.of(model.layers(), par.layersPerStage()))
                .blockingSends(blockingSends).replicas(allReplicas ? par.layout().mesh().dp() : 1)
                .batch(microbatches(), training.microBatch(), training.seqLen())
                .kernels(kernels).recompute(training.recompute().cost())
                .recomputeModules(training.recomputeModules()).xlaRemat(training.xlaRemat())
                .bf16Layers(training.bf16Layers())
                .execution(execution())
                .build();
    }

    /** CUDA graphs and activation offload as the training section sets them, over the cluster's host link. */
    public Execution execution() {
        return new Execution(training.cudaGraphs(), training.cpuOffloadLayers(),
                training.cpuOffloadLayers() > 0 ? host : null);
    }
}
