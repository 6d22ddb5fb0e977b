package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.Op;
import org.clustersim.strategies.pipeline.PipelineTasks;

/**
 * The data-parallel half of a training step, added after every replica's pipeline: ZeRO-3's
 * per-layer gathers and reduce-scatters, gradient buckets (dense weights over every CP and DP
 * rank holding them, expert weights over the replicas holding the same experts), the tied
 * embedding all-reduce, the Adam step and ZeRO 1/2's weight all-gather.
 */
final class GradientSync {
    /** Bytes Adam reads and writes per parameter: fp32 weight, gradient and two moments in, three and bf16 weight out. */
    static final double ADAM_BYTES_PER_PARAM = 30;
    private final TrainingStep step;
    private final TaskGraph.Builder g;
    private final DataParallelCollectives dpc;

    GradientSync(TrainingStep step, TaskGraph.Builder graph, DataParallelCollectives dpc) {
        this.step = step;
        this.g = graph;
        this.dpc = dpc;
    }

    /** Adds everything, given the pipelines and (ZeRO-3) each rank's uses of sharded weights, or null. */
    void add(List<PipelineTasks> pipelines, Map<Integer, List<TensorParallelWork.ShardUse>> shardUses) {
        Map<Integer, List<Integer>> shardReductions = shardUses == null ? Map.of() : addShardedWeights(shardUses);
        addOptimizer(pipelines, shardReductions);
    }

    /**
     * ZeRO-3 (FSDP full sharding, Zhao et al., VLDB 2023): every layer pass that needs the
     * layer's weights waits for an all-gather of its bf16 shards over the data-parallel group,
     * issued one layer ahead; every pass that completes the layer's gradients is followed by a
     * reduce-scatter of them (fp32), once per microbatch as FSDP does without no_sync. Gathers
     * and reductions run on two streams of their own, in each rank's program order.
     *
     * @return per device, the reduce-scatters the optimizer step waits for
     */
    private Map<Integer, List<Integer>> addShardedWeights(
                                                          Map<Integer, List<TensorParallelWork.ShardUse>> uses) {
        Map<Integer, List<Integer>> reductions = new HashMap<>();
        for (int p = 0; p < step.pp(); p++) {
            List<List<TensorParallelWork.ShardUse>> perReplica = new ArrayList<>();
            for (int d = 0; d < step.replicas(); d++) {
                perReplica.add(uses.getOrDefault(step.device(0, p, d), List.of()));
            }
            int n = perReplica.get(0).size();
            for (int t = 0; t < step.tp(); t++) {
                int[] group = step.gradientGroup(t, p);
                List<Integer> rs = reductions.computeIfAbsent(group[0], k -> new ArrayList<>());
                for (int i = 0; i < n; i++) {
                    TensorParallelWork.ShardUse u0 = perReplica.get(0).get(i);
                    double params = step.layerParams(u0.layer);
                    if (u0.gathers) {
                        int[] window = new int[u0.window < 0 ? 0 : step.replicas()];
                        for (int d = 0; d < window.length; d++) {
                            window[d] = perReplica.get(d).get(i).window;
                        }
                        int ag = dpc.gather("fsdp all-gather L" + u0.layer, group, step.shardSize(),
                                Math.round(params * step.weightGatherBytes()), window, "fsdp-ag");
                        for (int d = 0; d < step.replicas(); d++) {
                            dpc.graph().addDependency(perReplica.get(d).get(i).user, ag);
                        }
                    }
                    if (u0.gradsDone >= 0) {
                        int[] done = new int[step.replicas()];
                        for (int d = 0; d < step.replicas(); d++) {
                            done[d] = perReplica.get(d).get(i).gradsDone;
                        }
                        rs.add(dpc.reduce("fsdp reduce-scatter L" + u0.layer, CollectiveOp.REDUCE_SCATTER, group,
                                step.shardSize(), Math.round(params * 4), done, "fsdp-rs"));
                    }
                }
            }
        }
        return reductions;
    }

    /** Gradient buckets, the data-parallel reduction, the Adam step and (ZeRO 1, 2) the weight all-gather. */
    private void addOptimizer(List<PipelineTasks> pipelines,
                              Map<Integer, List<Integer>> shardReductions) {
        Map<String, Integer> embeddingTasks = new HashMap<>();
        var placement = step.schedule().placement(step.pp(), step.microbatches());
        int embedRank = placement.rank(0, 0);
        int logitsRank = placement.rank(0, step.stages() - 1);
        double gradBytesPerParam = 4;
        CollectiveOp op = step.zero() == 0 ? CollectiveOp.ALL_REDUCE : CollectiveOp.REDUCE_SCATTER;
        int shard = step.zero() == 0 ? 1 : step.shardSize();
        for (int p = 0; p < step.pp(); p++) {
            for (int t = 0; t < step.tp(); t++) {
                int[] group = step.gradientGroup(t, p);
                List<Integer> reductions = new ArrayList<>();
                // per EP rank, the reductions of its expert gradients
                List<List<Integer>> expertReductions = new ArrayList<>();
                for (int e = 0; e < step.ep(); e++) {
                    expertReductions.add(new ArrayList<>());
                }
                double localParams = 0;
                double localExperts = 0;
                for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
                    int stage = placement.stageOfChunk(p, chunk);
                    double params = step.stageParams(stage);
                    double expertParams = step.ep() > 1 ? step.stageExpertParams(stage) : 0;
                    localParams += params;
                    localExperts += expertParams;
                    // ZeRO-3 reduces layer gradients per microbatch; embedding and logits weights stay here
                    double reduced = (step.zero() == 3 ? params - layerParamsOf(stage) : params) - expertParams;
                    if (step.dp() * step.cp() == 1) {
                        continue;
                    }
                    int[] readyFirst = pipelines.get(0).gradientsReady(p, stage);
                    if (reduced >= 1) {
                        int parts = step.zero() == 3 ? 1 : Math.max(1, readyFirst.length);
                        double partBytes = reduced * gradBytesPerParam / parts;
                        double pending = 0;
                        for (int i = 0; i < parts; i++) {
                            pending += partBytes;
                            if (pending < step.bucketBytes() && i < parts - 1) {
                                continue;
                            }
                            int[] deps = new int[step.replicas()];
                            for (int d = 0; d < step.replicas(); d++) {
                                int[] ready = pipelines.get(d).gradientsReady(p, stage);
                                deps[d] = ready[step.overlapGradReduce() && step.zero() < 3 ? Math.min(i, ready.length - 1)
                                        : ready.length - 1];
                            }
                            reductions.add(dpc.reduce("dp-grad " + op.id() + " stage" + stage + " part" + i, op,
                                    group, shard, Math.round(pending), deps, "dp"));
                            pending = 0;
                        }
                    }
                    if (expertParams >= 1 && step.expertShardSize() > 1) {
                        addExpertReductions(pipelines, t, p, stage, expertParams * gradBytesPerParam,
                                expertReductions);
                    }
                }
                reductions.addAll(shardReductions.getOrDefault(group[0], List.of()));
                // V shapes keep the embedding and the logits on one rank: nothing to synchronise
                if (step.model().tiedEmbeddings() && embedRank != logitsRank && (p == embedRank || p == logitsRank)) {
                    reductions.addAll(embeddingSync(t, embedRank, logitsRank, pipelines, embeddingTasks));
                }
                double denseShare = step.zero() == 0 ? localParams - localExperts : (localParams - localExperts) / shard;
                double expertShare = step.zero() == 0 ? localExperts : localExperts / step.expertShardSize();
                double adamNs = adamNs(denseShare + expertShare);
                int[] optimizer = new int[step.replicas() * step.cp()];
                for (int i = 0; i < optimizer.length; i++) {
                    int d = i / step.cp();
                    int stream = g.stream(group[i], "compute", StreamKind.COMPUTE);
                    optimizer[i] = g.compute("adam step", "optimizer", stream, Math.round(adamNs), 0);
                    List<Integer> own = expertReductions.get(d % step.ep());
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
                if ((step.zero() == 1 || step.zero() == 2) && step.dp() * step.cp() > 1) {
                    long weightBytes = Math.round((localParams - localExperts) * step.weightGatherBytes());
                    dpc.gather("dp-param all-gather rank" + p, group, shard, weightBytes, optimizer, "dp");
                    if (localExperts >= 1 && step.expertShardSize() > 1) {
                        for (int e = 0; e < step.ep(); e++) {
                            int[] members = step.expertGradientGroup(t, p, e);
                            int[] deps = optimizersOf(members, group, optimizer);
                            dpc.gather("expert-param all-gather rank" + p, members, step.expertShardSize(),
                                    Math.round(localExperts * step.weightGatherBytes()), deps, "dp");
                        }
                    }
                }
            }
        }
    }

    /** Layer parameters of a stage on one GPU (what ZeRO 3 reduces layer by layer). */
    private double layerParamsOf(int stage) {
        double params = 0;
        for (int l = step.split().firstLayer(stage); l < step.split().firstLayer(stage) + step.split().layers(stage); l++) {
            params += step.layerParams(l);
        }
        return params;
    }

    /**
     * The expert gradients of one stage, reduced over each EP rank's expert-holding group once
     * the stage's backward has finished: an all-reduce, or a reduce-scatter with ZeRO. With one
     * replica simulated, every group launches when replica 0 is ready; otherwise each group
     * waits for its own simulated step.replicas().
     */
    private void addExpertReductions(List<PipelineTasks> pipelines, int t, int p,
                                     int stage, double bytes, List<List<Integer>> out) {
        CollectiveOp op = step.zero() == 0 ? CollectiveOp.ALL_REDUCE : CollectiveOp.REDUCE_SCATTER;
        for (int e = 0; e < step.ep(); e++) {
            List<Integer> deps = new ArrayList<>();
            for (int d = 0; d < step.replicas(); d++) {
                if (step.replicas() == 1 || d % step.ep() == e) {
                    int[] ready = pipelines.get(d).gradientsReady(p, stage);
                    deps.add(ready[ready.length - 1]);
                }
            }
            out.get(e).add(dpc.reduce("expert-grad " + op.id() + " stage" + stage, op, step.expertGradientGroup(t, p, e),
                    step.expertShardSize(), Math.round(bytes), deps.stream().mapToInt(Integer::intValue).toArray(), "dp"));
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
     * Tied word embeddings live on the first and the last pipeline stage (ranks {@code embedRank}
     * and {@code logitsRank}); their gradients are summed by an all-reduce between the two (per
     * TP rank, context rank and replica) before the optimizer
     * step, in fp32. Built once per (TP rank, replica), remembered in {@code embeddingTasks}.
     */
    private List<Integer> embeddingSync(int t, int embedRank, int logitsRank,
                                        List<PipelineTasks> pipelines, Map<String, Integer> embeddingTasks) {
        String key = "embedding/" + t;
        List<Integer> tasks = new ArrayList<>();
        int lastStage = step.stages() - 1;
        long bytes = Math.round((double) step.model().vocab() * step.model().hidden() / step.tp() * 4);
        for (int d = 0; d < step.replicas(); d++) {
            for (int c = 0; c < step.cp(); c++) {
                Integer known = embeddingTasks.get(key + "/" + c + "/" + d);
                if (known == null) {
                    int[] first = pipelines.get(d).gradientsReady(embedRank, 0);
                    int[] last = pipelines.get(d).gradientsReady(logitsRank, lastStage);
                    int[] deps = {first[first.length - 1], last[last.length - 1]};
                    known = dpc.reduce("embedding grad all-reduce", CollectiveOp.ALL_REDUCE,
                            new int[] {step.device(t, c, embedRank, d), step.device(t, c, logitsRank, d)}, 1, bytes, deps, "dp");
                    embeddingTasks.put(key + "/" + c + "/" + d, known);
                }
                tasks.add(known);
            }
        }
        return tasks;
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
