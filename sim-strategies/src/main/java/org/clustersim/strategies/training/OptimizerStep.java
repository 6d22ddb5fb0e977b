package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.Op;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.StagePlacement;

/**
 * The end of the step on one TP rank of a pipeline rank: the fused Adam step, a memory-bound
 * compute task over each GPU's share of the parameters, once its gradients are reduced (without
 * data parallelism, once the rank's own backward is done); with ZeRO 1 or 2 (the distributed
 * optimizer) followed by an all-gather of the updated bf16 weights, dense ones over the shard
 * group, expert ones over the ranks holding the same experts, unless that gather is overlapped
 * with the next step's forward instead ({@link ParamGatherPrefetch}). What completes the update on
 * each GPU is kept for the next step's first use of the weights.
 */
final class OptimizerStep {
    /** Bytes Adam reads and writes per parameter: fp32 weight, gradient and two moments in, three and bf16 weight out. */
    static final double ADAM_BYTES_PER_PARAM = 30;
    private final TrainingStep step;
    private final TaskGraph.Builder g;
    private final DataParallelCollectives dpc;
    private final List<PipelineTasks> pipelines;
    private final StagePlacement placement;
    /** Per device, the tasks that complete its weight update. */
    private final java.util.Map<Integer, List<Integer>> updates = new java.util.HashMap<>();

    OptimizerStep(TrainingStep step, DataParallelCollectives dpc, List<PipelineTasks> pipelines) {
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

    private void updated(int device, int task) {
        updates.computeIfAbsent(device, k -> new ArrayList<>()).add(task);
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
            optimizer[i] = g.compute("adam step", "optimizer", stream, Math.round(adamNs), 0);
            updated(group[i], optimizer[i]);
            List<Integer> own = reduced.experts().get(d % step.ep());
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
        if (gatherAfter && (step.zero() == 1 || step.zero() == 2) && step.dp() * step.cp() > 1) {
            long weightBytes = Math.round((localParams - localExperts) * step.weightGatherBytes());
            int gather = dpc.gather("dp-param all-gather rank" + p, group, shard, weightBytes, optimizer, "dp");
            for (int member : group) {
                updated(member, gather);
            }
            if (localExperts >= 1 && step.expertShardSize() > 1) {
                for (int e = 0; e < step.ep(); e++) {
                    int[] members = step.mesh().expertGradientGroup(t, p, e);
                    int[] deps = optimizersOf(members, group, optimizer);
                    int experts = dpc.gather("expert-param all-gather rank" + p, members, step.expertShardSize(),
                            Math.round(localExperts * step.weightGatherBytes()), deps, "dp");
                    for (int member : members) {
                        updated(member, experts);
                    }
                }
            }
        }
    }

    /** The optimizer tasks (indexed like {@code group}'s simulated prefix) of the members that have one. */
    private static int[] optimizersOf(int[] members, int[] group, int[] optimizer) {
        List<Integer> deps = new ArrayList<>();
        for (int m : members) {
            for (int i = 0; i < optimizer.length; i++) {
                if (group[i] == m) {
                    deps.add(optimizer[i]);
                }
            }
        }
        if (deps.isEmpty()) {
            for (int o : optimizer) {
                deps.add(o);
            }
        }
        return deps.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * The fused Adam step over {@code params} parameters: {@link #ADAM_BYTES_PER_PARAM} bytes each
     * at the fraction of HBM bandwidth the profile's fused-Adam measurement reached.
     */
    private double adamNs(double params) {
        DeviceProfile device = step.device();
        double ns = params * ADAM_BYTES_PER_PARAM / (device.hbmBytesPerS() * device.adamBandwidthFraction()) * 1e9;
        return device.launch().ns(ns, device.kernels().forward(Op.OPTIMIZER));
    }
}
