package org.clustersim.cli.scenario;

import java.nio.file.Path;
import java.util.Optional;

import org.clustersim.strategies.PipelineTrainingStep;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;

/**
 * A validated scenario: everything needed to simulate one training step. Built only by
 * {@link ScenarioReader}, which guarantees the values are consistent.
 *
 * @param name        scenario name (the file's stem unless given)
 * @param source      the file it was read from
 * @param cluster     the cluster
 * @param model       the model
 * @param parallelism the parallel layout
 * @param schedule    the pipeline schedule
 * @param training    batch, sequence and precision settings
 * @param fidelity    network model
 * @param output      output paths named in the file
 */
public record Scenario(String name, Path source, SwitchedClusterSpec cluster, TransformerModel model,
                       Parallelism parallelism, ScheduleKind schedule, Training training, Fidelity fidelity,
                       Output output) {

    /**
     * The parallel layout.
     *
     * @param tp tensor-parallel size
     * @param pp pipeline-parallel size
     * @param dp data-parallel size
     * @param cp context-parallel size
     * @param ep expert-parallel size
     * @param vp model chunks per rank: v of the interleaved schedule, 2 for ZB-V and DualPipeV, else 1
     * @param zero ZeRO stage 0..3
     * @param sequenceParallel Megatron sequence parallelism with TP
     */
    public record Parallelism(int tp, int pp, int dp, int cp, int ep, int vp, int zero, boolean sequenceParallel) {
        /** GPUs the layout occupies: tp x cp x pp x dp. */
        public int gpus() {
            return tp * cp * pp * dp;
        }
    }

    /**
     * Batch and numerics.
     *
     * @param globalBatch sequences per optimizer step
     * @param microBatch  sequences per microbatch
     * @param seqLen      tokens per sequence
     * @param precision   matrix-multiply precision
     * @param recompute   activation recomputation
     */
    public record Training(int globalBatch, int microBatch, int seqLen, Precision precision, Recompute recompute) {
    }

    /** Activation recomputation policy. */
    public enum Recompute { NONE, SELECTIVE, FULL }

    /** Network model fidelity. */
    public enum Fidelity { ANALYTICAL, FLOW }

    /**
     * Output paths given in the file; command-line flags take precedence.
     *
     * @param trace   Chrome trace path
     * @param summary JSON summary path
     */
    public record Output(Optional<String> trace, Optional<String> summary) {
    }

    /** Microbatches per step per pipeline: globalBatch / (microBatch x dp). */
    public int microbatches() {
        return training.globalBatch() / (training.microBatch() * parallelism.dp());
    }

    /** The training step this scenario describes. */
    public PipelineTrainingStep trainingStep() {
        return new PipelineTrainingStep(model, cluster.build(), parallelism.pp(), microbatches(),
                training.microBatch(), training.seqLen(), training.precision(), schedule.schedule(parallelism.vp()));
    }
}
