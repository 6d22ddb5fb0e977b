package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.clustersim.strategies.cost.LayerCostModel;

/**
 * The parts every pipeline rank of a step runs its actions with, made once per step: the layers'
 * blocks, one transformer layer with its tensor-, context- and expert-parallel communication, the
 * cost model of the embedding and logits, activation offload, and the plans of the in-pipeline
 * collectives. The step's task graph ({@link StepBuilder}) and the timing of its actions for an estimate
 * ({@link ActionTimes}) emit the same actions from the same parts.
 *
 * @param blocks  each kind of layer's blocks
 * @param layer   a transformer layer's tasks in each pass
 * @param outer   the cost model of the embedding and the logits
 * @param offload the layers whose activations go to the host, or null
 * @param graphed whether the layers replay from CUDA graphs
 * @param plans   the plans of the in-pipeline collectives
 */
record StageParts(LayerBlocks blocks, TransformerLayer layer, LayerCostModel outer, ActivationOffload offload,
                  boolean graphed, GroupPlans plans) {

    /** The parts of {@code step}. */
    static StageParts of(TrainingStep step) {
        return of(step, false);
    }

    /**
     * The parts of {@code step} for timing its actions one by one (an estimate, {@link ActionTimes}):
     * each collective group chooses its algorithm by its own estimate ({@link GroupPlans}).
     */
    static StageParts alone(TrainingStep step) {
        return of(step, true);
    }

    private static StageParts of(TrainingStep step, boolean eachGroup) {
        LayerCostModel cost = step.layerCost();
        GroupPlans plans = new GroupPlans(step.topology(), step.model().experts(), step.allToAll(), eachGroup);
        TensorParallel tensor = new TensorParallel(step.tp(), step.cp(), cost.seqParallel(),
                step.model().boundaryActivationBytes(step.microBatch(), step.seqLen() / step.cp(),
                        TrainingStep.ACTIVATION_BYTES), plans);
        ExpertParallel.Groups groups = step.ep() > 1 ? new ExpertParallel.Groups(d -> expertGroups(step, d),
                step.replicas() == 1) : null;
        LayerBlocks blocks = new LayerBlocks(cost, step.numerics());
        TensorParallelOverlap overlap = step.tpCommOverlap() && tensor.sequenceParallel()
                ? new TensorParallelOverlap(tensor, cost, step.topology().spec()
                        .filter(spec -> spec instanceof org.clustersim.topology.TorusSpec)
                        .map(spec -> new TensorParallelOverlap.RingExchange(true,
                                step.topology().tuning().nvlinkEfficiency()))
                        .orElse(TensorParallelOverlap.RingExchange.USERBUFFERS)) : null;
        TransformerLayer layer = new TransformerLayer(blocks, tensor,
                new KeyValueExchange(cost, step.cpKind(), plans), new ExpertParallel(cost, groups, tensor, plans),
                overlap, step.topology().spec().filter(spec -> spec instanceof org.clustersim.topology.TorusSpec)
                        .isPresent());
        LayerCostModel outer = step.execution().graphs().layers() ? step.outerCost() : cost;
        ActivationOffload offload = step.execution().offloads() ? new ActivationOffload(
                step.execution().offloadLayers(), step.execution().host(), new MemoryModel(step)::layerBytes) : null;
        return new StageParts(blocks, layer, outer, offload, step.execution().graphs().layers(), plans);
    }

    /** How every rank of {@code step} runs its actions, with ZeRO-3's record of weight uses and forward entries (either null). */
    TransformerStageWork work(TrainingStep step, ShardedWeights sharded, ForwardEntries entries) {
        return new TransformerStageWork(blocks, layer, step.split(), sharded, entries, outer, offload, graphed);
    }

    /**
     * The expert-parallel groups one GPU's all-to-all stands for: its own, and with one replica
     * simulated for all, the EP group of every replica's GPU at its TP, CP and PP position
     * (replica by replica, each group once).
     */
    private static List<int[]> expertGroups(TrainingStep step, int device) {
        Mesh mesh = step.mesh();
        if (step.replicas() != 1) {
            return List.of(mesh.expertGroup(device));
        }
        Mesh.Coordinates at = mesh.coordinates(device);
        List<int[]> groups = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        for (int d = 0; d < mesh.dp(); d++) {
            int[] group = mesh.expertGroup(mesh.device(at.tp(), at.cp(), at.pp(), d));
            if (seen.add(group[0])) {
                groups.add(group);
            }
        }
        return groups;
    }
}
