package org.clustersim.strategies;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RooflineCost;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ChunkCost;
import org.clustersim.strategies.pipeline.PipelineCosts;
import org.clustersim.strategies.pipeline.PipelineProgram;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StagePlacement;
import org.clustersim.topology.Topology;
import org.clustersim.topology.Vertex;

/**
 * One training step of a dense transformer under a pipeline schedule, one pipeline rank per
 * GPU. The schedule's placement cuts each model copy into S stages of L/S layers (S = p, or
 * v p when chunked); the last stage of a path also computes the logits. Every stage's F, Bi
 * and W times come from the roofline cost model; activations and gradients of b s h elements
 * cross every stage boundary that changes rank.
 *
 * @param model        the transformer
 * @param topology     the cluster; rank r runs on device r
 * @param ranks        pipeline size p
 * @param microbatches microbatches per step m
 * @param microBatch   sequences per microbatch b
 * @param seqLen       tokens per sequence s
 * @param precision    matrix-multiply precision
 * @param schedule     pipeline schedule
 */
public record PipelineTrainingStep(TransformerModel model, Topology topology, int ranks, int microbatches,
                                   int microBatch, int seqLen, Precision precision, PipelineSchedule schedule) {

    public PipelineTrainingStep {
        if (ranks < 1) {
            throw new IllegalArgumentException("pipeline size must be at least 1, got " + ranks);
        }
        int stages = schedule.placement(ranks, Math.max(microbatches, 1)).stages();
        if (model.layers() % stages != 0) {
            throw new IllegalArgumentException(schedule.name() + " cuts the model into " + stages
                    + " stages, which must divide layers " + model.layers());
        }
        if (ranks > topology.deviceCount()) {
            throw new IllegalArgumentException(ranks + " pipeline ranks need " + ranks + " GPUs; the cluster has "
                    + topology.deviceCount());
        }
    }

    /** Stages on a microbatch's path. */
    public int stages() {
        return placement().stages();
    }

    public StagePlacement placement() {
        return schedule.placement(ranks, microbatches);
    }

    /** Cost of stage {@code stage}, wherever it runs. */
    public ChunkCost stageCost(int stage) {
        RooflineCost cost = new RooflineCost(topology.accelerator(), precision);
        int layersPerStage = model.layers() / stages();
        double f = layersPerStage * model.layerForwardFlops(microBatch, seqLen);
        double w = layersPerStage * model.layerWeightGradFlops(microBatch, seqLen);
        if (stage == stages() - 1) {
            double logits = model.logitsForwardFlops(microBatch, seqLen);
            f += logits;
            w += logits;
        }
        double bi = 2 * f - w;
        return new ChunkCost(cost.durationNs(f), cost.durationNs(bi), cost.durationNs(w), f, bi, w);
    }

    /** Bytes crossing a stage boundary per microbatch in each direction. */
    public long boundaryBytes() {
        return model.boundaryActivationBytes(microBatch, seqLen, precision.bytesPerElement());
    }

    /** The step's task graph over devices 0..p-1, and the tasks that hold activations. */
    public Built build() {
        TaskGraph.Builder b = TaskGraph.builder();
        int[] rankDevice = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            Vertex v = topology.device(r);
            rankDevice[r] = b.device(v.name(), v.node());
        }
        ChunkCost[] byStage = new ChunkCost[stages()];
        for (int k = 0; k < byStage.length; k++) {
            byStage[k] = stageCost(k);
        }
        PipelineCosts costs = (rank, stage) -> byStage[stage];
        PipelineTasks tasks = new PipelineProgram(schedule, ranks, microbatches, costs, boundaryBytes())
                .addTo(b, rankDevice);
        return new Built(b.build(), tasks);
    }

    /** The step's task graph alone. */
    public TaskGraph taskGraph() {
        return build().graph();
    }

    /**
     * A built step.
     *
     * @param graph the task graph
     * @param tasks activation bookkeeping for measuring memory from the timeline
     */
    public record Built(TaskGraph graph, PipelineTasks tasks) {
    }
}
