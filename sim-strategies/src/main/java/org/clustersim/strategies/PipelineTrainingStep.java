package org.clustersim.strategies;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RooflineCost;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.PipelineProgram;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.StageCost;
import org.clustersim.topology.Topology;
import org.clustersim.topology.Vertex;

/**
 * One training step of a dense transformer split into pipeline stages, one stage per GPU:
 * stage r holds layers [r L/p, (r+1) L/p), the last stage also computes the logits. Each
 * stage's forward and backward times come from the roofline cost model; activations and
 * gradients of b s h elements cross every stage boundary.
 *
 * @param model        the transformer
 * @param topology     the cluster; stage r runs on device r
 * @param stages       pipeline depth p; must divide the layer count
 * @param microbatches microbatches per step m
 * @param microBatch   sequences per microbatch b
 * @param seqLen       tokens per sequence s
 * @param precision    matrix-multiply precision
 * @param schedule     pipeline schedule
 */
public record PipelineTrainingStep(TransformerModel model, Topology topology, int stages, int microbatches,
                                   int microBatch, int seqLen, Precision precision, PipelineSchedule schedule) {

    public PipelineTrainingStep {
        if (stages < 1 || model.layers() % stages != 0) {
            throw new IllegalArgumentException("pipeline stages " + stages + " must divide layers " + model.layers());
        }
        if (stages > topology.deviceCount()) {
            throw new IllegalArgumentException(stages + " stages need " + stages + " GPUs; the cluster has "
                    + topology.deviceCount());
        }
    }

    /** Forward and backward cost of every stage. */
    public List<StageCost> stageCosts() {
        RooflineCost cost = new RooflineCost(topology.accelerator(), precision);
        double layerFlops = model.layerForwardFlops(microBatch, seqLen);
        int layersPerStage = model.layers() / stages;
        List<StageCost> out = new ArrayList<>(stages);
        for (int r = 0; r < stages; r++) {
            double fwd = layersPerStage * layerFlops;
            if (r == stages - 1) {
                fwd += model.logitsForwardFlops(microBatch, seqLen);
            }
            double bwd = 2 * fwd;
            out.add(new StageCost(cost.durationNs(fwd), cost.durationNs(bwd), fwd, bwd));
        }
        return out;
    }

    /** Bytes crossing a stage boundary per microbatch in each direction. */
    public long boundaryBytes() {
        return model.boundaryActivationBytes(microBatch, seqLen, precision.bytesPerElement());
    }

    /** The step's task graph over devices 0..p-1. */
    public TaskGraph taskGraph() {
        TaskGraph.Builder b = TaskGraph.builder();
        int[] rankDevice = new int[stages];
        for (int r = 0; r < stages; r++) {
            Vertex v = topology.device(r);
            rankDevice[r] = b.device(v.name(), v.node());
        }
        new PipelineProgram(schedule, stageCosts(), microbatches, boundaryBytes()).addTo(b, rankDevice);
        return b.build();
    }
}
