package org.clustersim.strategies.training;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.Op;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StagePlacement;

/**
 * The end of the step on one TP rank of a pipeline rank: the fused Adam step, a memory-bound
 * compute task over each GPU's share of the parameters, once its gradients are reduced (without
 * data parallelism, once the rank's own backward is done); with ZeRO 1 or 2 (the distributed
 * optimizer) followed by an all-gather of the updated bf16 weights, dense ones over the shard
 * group, expert ones over each expert data-parallel group ({@link ExpertMesh}), unless that
 * gather is overlapped with the next step's forward instead ({@link ParamGatherPrefetch}). What
 * completes the update on each GPU is kept for the next step's first use of the weights.
 */
final class OptimizerStep {
    private static final TaskTag TAG = TaskTag.of(TaskTag.Pass.OPTIMIZER, -1, -1);
    /**
     * Bytes Adam reads and writes per parameter with fp32 moments: fp32 weight, gradient and two
     * moments in, three and bf16 weight out ({@link org.clustersim.strategies.cost.KernelCosts#adamBytesPerParam}:
     * 22 with bf16 moments).
     */
    static final double ADAM_BYTES_PER_PARAM = 30;
    private final TrainingStep step;
    private final TaskGraph.Builder g;
    private final DataParallelCollectives dpc;
    private final List<PipelineTasks> pipelines;
    private final StagePlacement placement;
    /** Each simulated GPU's Adam task, for the expert weights' gathers. */
    private final Map<Integer, Integer> optimizers = new HashMap<>();
    /** Per device, the tasks that complete its weight update. */
    private final Map<Integer, List<Integer>> updates = new HashMap<>();
    /** Per device, its first model chunk's Adam step when that runs apart ({@link #firstChunkUpdateOf}). */
    private final Map<Integer, Integer> firstChunk = new HashMap<>();
    private final boolean splitFirstChunk;

    OptimizerStep(TrainingStep step, DataParallelCollectives dpc, List<PipelineTasks> pipelines) {
        this(step, dpc, pipelines, false);
    }

    /**
     * @param splitFirstChunk run the first model chunk's Adam step as a task of its own before the
     *                        other chunks' (Megatron-core's {@code overlap_param_gather_with_optimizer_step}
     *                        gives chunk 0 an optimizer of its own, first in the chain, and dispatches
     *                        its weights' gather right after it: optimizer.py {@code ChainedOptimizer._step})
     */
    OptimizerStep(TrainingStep step, DataParallelCollectives dpc, List<PipelineTasks> pipelines,
                  boolean splitFirstChunk) {
        this.splitFirstChunk = splitFirstChunk && placement(step).chunksPerRank() > 1;
        this.step = step;
        this.g = dpc.graph();
        this.dpc = dpc;
        this.pipelines = pipelines;
        this.placement = step.schedule().placement(step.pp(), step.microbatches());
    }

    /**
     * The tasks that complete the weight update on {@code device}: its Adam step and the weight
     * all-gathers it takes part in (empty for a GPU of a replica not simulated).
     */
    List<Integer> updatesOf(int device) {
        return updates.getOrDefault(device, List.of());
    }

    /**
     * The task after which the first model chunk's weights are updated on {@code device}: its own
     * Adam step when that runs apart, else the device's whole update.
     */
    List<Integer> firstChunkUpdateOf(int device) {
        Integer own = firstChunk.get(device);
        return own == null ? updatesOf(device) : List.of(own);
    }

    private static StagePlacement placement(TrainingStep step) {
        return step.schedule().placement(step.pp(), step.microbatches());
    }

    private void updated(int device, int task) {
        updates.computeIfAbsent(device, k -> new java.util.ArrayList<>()).add(task);
    }

    /**
     * Adds the step of TP rank t of pipeline rank p after {@code reduced}, sharded over {@code shard}
     * ranks; with {@code gatherAfter} (and ZeRO 1 or 2) the all-gather of the updated weights follows.
     */
    void add(int t, int p, GradientReduction.Reduced reduced, int shard, boolean gatherAfter) {
        int[] group = step.mesh().gradientGroup(t, p);
        double localParams = reduced.params();
        double localExperts = reduced.expertParams();
        List<Integer> reductions = reduced.dense();
        double denseShare = step.zero() == 0 ? localParams - localExperts : (localParams - localExperts) / shard;
        double expertShare = step.zero() == 0 ? localExperts : localExperts / step.expertShardSize();
        double adamNs = adamNs(denseShare + expertShare);
        int[] optimizer = new int[step.replicas() * step.cp()];
        for (int i = 0; i < optimizer.length; i++) {
            int d = i / step.cp();
            int stream = g.stream(group[i], "compute", StreamKind.COMPUTE);
            int first = -1;
            double share = splitFirstChunk ? firstChunkShare(p) : 0;
            if (share > 0) {
                first = g.compute("adam step chunk0", TAG, stream, Math.round(adamNs * share), 0);
                firstChunk.put(group[i], first);
                updated(group[i], first);
            }
            optimizer[i] = g.compute("adam step", TAG, stream, Math.round(adamNs * (1 - share)), 0);
            updated(group[i], optimizer[i]);
            if (first >= 0) {
                g.addDependency(optimizer[i], first);
                for (int r : reductions) {
                    g.addDependency(first, r);
                }
                for (int r : reduced.experts().getOrDefault(group[i], List.of())) {
                    g.addDependency(first, r);
                }
            }
            List<Integer> own = reduced.experts().getOrDefault(group[i], List.of());
            for (int r : reductions) {
                g.addDependency(optimizer[i], r);
            }
            for (int r : own) {
                g.addDependency(optimizer[i], r);
            }
            if (reductions.isEmpty() && own.isEmpty()) {
                // without data parallelism the step waits for the rank's own last backward
                for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
                    for (int ready : pipelines.get(d).gradientsReady(p, placement.stageOfChunk(p, chunk))) {
                        g.addDependency(optimizer[i], ready);
                    }
                }
            }
        }
        for (int i = 0; i < optimizer.length; i++) {
            optimizers.put(group[i], optimizer[i]);
        }
        boolean distributed = gatherAfter && (step.zero() == 1 || step.zero() == 2);
        if (distributed && step.dp() * step.cp() > 1) {
            long weightBytes = Math.round((localParams - localExperts) * step.weightGatherBytes());
            int gather = dpc.gather("dp-param all-gather rank" + p, group, shard, weightBytes, optimizer, "dp");
            for (int member : group) {
                updated(member, gather);
            }
        }
        if (distributed && localExperts >= 1 && step.expertShardSize() > 1) {
            for (int[] members : step.mesh().experts().dataGroups(p)) {
                if (highestTpRank(members) == t) {
                    int experts = dpc.gather("expert-param all-gather rank" + p, members, step.expertShardSize(),
                            Math.round(localExperts * step.weightGatherBytes()), optimizersOf(members), "dp");
                    for (int member : members) {
                        updated(member, experts);
                    }
                }
            }
        }
    }

    /** The highest TP rank among a group's GPUs: the last to have its optimizer steps built. */
    private int highestTpRank(int[] members) {
        int t = 0;
        for (int m : members) {
            t = Math.max(t, step.coordinates(m).tp());
        }
        return t;
    }

    /**
     * The optimizer tasks of a group's members, in member order; a member of a replica that is
     * not simulated is stood in for by its counterpart in replica 0.
     */
    private int[] optimizersOf(int[] members) {
        LinkedHashSet<Integer> deps = new LinkedHashSet<>();
        for (int m : members) {
            Integer own = optimizers.get(m);
            if (own != null) {
                deps.add(own);
            }
        }
        if (deps.isEmpty()) {
            for (int m : members) {
                Mesh.Coordinates at = step.coordinates(m);
                deps.add(optimizers.get(step.device(at.tp(), at.cp(), at.pp(), 0)));
            }
        }
        return deps.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The first model chunk's share of pipeline rank p's parameters. */
    private double firstChunkShare(int p) {
        double all = 0;
        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
            all += step.stageParams(placement.stageOfChunk(p, chunk));
        }
        return all > 0 ? step.stageParams(placement.stageOfChunk(p, 0)) / all : 0;
    }

    /**
     * The fused Adam step over {@code params} parameters: {@link #ADAM_BYTES_PER_PARAM} bytes each
     * (fewer with bf16 moments), and in fp16 the loss-scaling passes before it
     * ({@link org.clustersim.strategies.cost.KernelCosts#lossScalingBytesPerParam}, two kernels more),
     * at the fraction of HBM bandwidth the profile's fused-Adam measurement reached.
     */
    private double adamNs(double params) {
        return adamNs(step, params);
    }

    /** {@link #adamNs(double)} of {@code step}: also what its estimate ({@link StepWalk}) charges. */
    static double adamNs(TrainingStep step, double params) {
        DeviceProfile device = step.device();
        double bytes = step.kernels().adamBytesPerParam() + step.kernels().lossScalingBytesPerParam();
        double ns = params * bytes / (device.hbmBytesPerS() * device.adamBandwidthFraction()) * 1e9;
        int kernels = device.kernels().forward(Op.OPTIMIZER) + (step.kernels().lossScalingBytesPerParam() > 0 ? 2 : 0);
        return device.launch().ns(ns, kernels);
    }
}
