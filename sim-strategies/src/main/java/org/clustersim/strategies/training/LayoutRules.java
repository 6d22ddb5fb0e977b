package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.pipeline.StagePlacement;
import org.clustersim.topology.Topology;

/**
 * Every rule that ties one layout setting to another, or to the model and batch: the one place
 * they are written. Each rule adds a {@link Violation} naming the scenario field it concerns
 * (its key under {@code parallelism}, or {@code zero3Impl}, ...) to a list, so that the scenario
 * reader turns each into an error located at that field, and {@link TrainingStep} (built by
 * {@link LayoutBuilder} or directly) rejects a layout with the same words ({@link #check}).
 */
public final class LayoutRules {
    private LayoutRules() {
    }

    /**
     * A broken rule.
     *
     * @param field   the scenario field it concerns, such as {@code tpCommOverlap} or {@code ep}
     * @param message what was found and what was expected
     */
    public record Violation(String field, String message) {
    }

    /** Megatron-core overlaps only the sequence-parallel collectives of tensor parallelism. */
    public static void tpCommOverlap(List<Violation> out, int tp, boolean sequenceParallel, boolean tpCommOverlap) {
        if (tpCommOverlap && tp > 1 && !sequenceParallel) {
            out.add(new Violation("tpCommOverlap", "found true without sequenceParallel: Megatron-core overlaps the "
                    + "sequence-parallel all-gathers and reduce-scatters; set parallelism.sequenceParallel: true"));
        }
    }

    /**
     * The experts of a pipeline stage fold over its tp x cp x dp GPUs as etp x ep x edp
     * (Megatron-core's MoE parallel folding): etp x ep must divide tp x cp x dp, and an expert TP
     * group must lie inside one pipeline rank (etp dividing tp x cp).
     */
    public static void expertFold(List<Violation> out, int tp, int cp, int dp, int ep, int etp) {
        int stage = tp * cp * dp;
        if (stage % etp != 0 || (tp * cp) % etp != 0) {
            out.add(new Violation("etp", "found " + etp + "; expected a divisor of tp x cp (" + tp * cp + "): an "
                    + "expert TP group reaching into other data-parallel replicas is not supported yet"));
        } else if (stage % (etp * ep) != 0) {
            String why = etp == tp && cp == 1 ? "expected a divisor of parallelism.dp (" + dp + "): with etp = tp the "
                    + "experts fold over the data-parallel replicas"
                    : "expected etp x ep = " + etp * ep + " to divide a pipeline stage's tp x cp x dp = " + stage
                    + " GPUs, which the experts fold over as etp x ep x edp";
            out.add(new Violation("ep", "found " + ep + ", " + why));
        }
    }

    /** ZeRO's stages are 0 to 3. */
    public static void zeroStage(List<Violation> out, int zero) {
        if (zero < 0 || zero > 3) {
            out.add(new Violation("zero", "ZeRO stage " + zero + " does not exist; use 0, 1, 2 or 3"));
        }
    }

    /** Sharding expert weights layer by layer (ZeRO 3 with experts apart) is not modelled. */
    public static void zero3Experts(List<Violation> out, int zero, int tp, int ep, int etp) {
        if ((ep > 1 || etp != tp) && zero == 3) {
            out.add(new Violation(ep > 1 ? "ep" : "etp", "found " + (ep > 1 ? ep : etp) + " with zero: 3; sharding "
                    + "expert weights FSDP-style is not modelled: use zero 0, 1 or 2 with expert parallelism"));
        }
    }

    /** A hybrid shard group needs ZeRO and divides the ranks holding the same weights. */
    public static void shardGroup(List<Violation> out, int shardGroup, int zero, int dp, int cp) {
        if (shardGroup < 0 || (shardGroup > 0 && (zero == 0 || (dp * cp) % shardGroup != 0))) {
            out.add(new Violation("shardGroup", "found " + shardGroup + ", expected a divisor of dp x cp (" + dp * cp
                    + ") with zero 1, 2 or 3: hybrid sharding shards inside groups of that many ranks"));
        }
    }

    /** Only ZeRO 3 gathers weights layer by layer, so only it takes a ZeRO-3 implementation's options. */
    public static void zero3Options(List<Violation> out, int zero, ShardingOptions options) {
        if (zero != 3 && !options.equals(ShardingOptions.defaults())) {
            out.add(new Violation("zero3Impl", "a ZeRO-3 implementation's options need ZeRO 3, not " + zero));
        }
    }

    /**
     * A framework whose ZeRO 3 runs without pipeline parallelism ({@link ShardingFramework#pipelineRefusal}:
     * DeepSpeed's pipeline engine takes ZeRO 0 or 1) refuses more than one stage or chunk per rank.
     */
    public static void deepSpeed(List<Violation> out, int zero, Zero3Impl impl, int pp, int chunks) {
        Optional<String> refusal = impl.framework().pipelineRefusal();
        if (refusal.isPresent() && zero == 3 && (pp > 1 || chunks > 1)) {
            out.add(new Violation("zero3Impl", "found " + impl.id() + " with " + (pp > 1 ? "pp: " + pp : chunks
                    + " model chunks per rank") + "; " + refusal.get() + ": expected pp: 1 and one chunk"));
        }
    }

    /**
     * Overlapping tensor parallelism's communication with the GEMMs (userbuffers, or a TPU mesh's
     * collective matmul) is modelled for serial blocks only, not for parallel ones, whose one
     * exchange per layer serves both branches.
     */
    public static void parallelBlocks(List<Violation> out, TransformerModel model, int tp, boolean tpCommOverlap) {
        if (model.parallelBlocks() && tpCommOverlap && tp > 1) {
            out.add(new Violation("tpCommOverlap", "found true (or, on a TPU mesh, collectiveMatmul), but "
                    + model.name() + " has parallel blocks (model.parallelBlocks), whose tensor-parallel exchanges "
                    + "are not modelled overlapped; expected tpCommOverlap: false (collectiveMatmul: false)"));
        }
    }

    /** Expert parallelism and expert TP need a model with experts, and EP divides the experts. */
    public static void experts(List<Violation> out, TransformerModel model, int tp, int ep, int etp) {
        if (etp != tp && model.experts() == null) {
            out.add(new Violation("etp", "found " + etp + ", but " + model.name() + " has no experts; expert tensor "
                    + "parallelism needs a mixture-of-experts model (model.experts)"));
        }
        if (ep > 1 && model.experts() == null) {
            out.add(new Violation("ep", "found " + ep + ", but " + model.name() + " has no experts; expert "
                    + "parallelism needs a mixture-of-experts model (model.experts)"));
        } else if (model.experts() != null && model.experts().count() % ep != 0) {
            out.add(new Violation("ep", "found " + ep + ", expected a divisor of model.experts ("
                    + model.experts().count() + ")"));
        }
    }

    /** Context parallelism splits each sequence evenly. */
    public static void contextParallel(List<Violation> out, int cp, int seqLen) {
        if (seqLen % cp != 0) {
            out.add(new Violation("cp", "found " + cp + "; expected a divisor of training.seqLen (" + seqLen + ")"));
        }
    }

    /**
     * Any all-to-all but auto needs expert parallelism; node-limited needs the model's node limit.
     * (Whether pxn and node-limited groups span servers evenly depends on the cluster: the scenario
     * reader checks that.)
     */
    public static void allToAll(List<Violation> out, AllToAllAlgorithm a, TransformerModel model, int ep) {
        if (a == AllToAllAlgorithm.AUTO) {
            return;
        }
        if (model.experts() == null || ep < 2) {
            out.add(new Violation("allToAll", "found " + a.id() + (model.experts() == null ? ", but " + model.name()
                    + " has no experts" : " with ep: " + ep) + "; expected expert parallelism (ep > 1), whose "
                    + "token exchanges it chooses, or leave it out (auto)"));
        } else if (a == AllToAllAlgorithm.NODE_LIMITED && model.experts().nodeLimit() < 1) {
            out.add(new Violation("allToAll", "found node-limited, but " + model.name() + " routes tokens without a "
                    + "node limit (model.nodeLimit is 0); expected model.nodeLimit >= 1, or auto, pxn or direct"));
        }
    }

    /**
     * The layer split: one entry per stage adding up to the model's layers; without one the stages
     * must divide the layers.
     *
     * @param perStage layers of each stage, or {@code null} for an even split
     * @param stages   stages on a microbatch's path
     * @param pp       pipeline ranks
     * @param chunks   model chunks per rank
     * @param layers   the model's layers
     */
    public static void layerSplit(List<Violation> out, int[] perStage, int stages, int pp, int chunks, int layers) {
        if (perStage != null) {
            int sum = java.util.Arrays.stream(perStage).sum();
            if (perStage.length != stages) {
                out.add(new Violation("layersPerStage", "found " + perStage.length + " entries; expected one per stage ("
                        + stages + ")"));
            } else if (sum != layers) {
                out.add(new Violation("layersPerStage", "the entries add up to " + sum + "; expected model.layers ("
                        + layers + ")"));
            }
        } else if (layers % stages != 0) {
            out.add(new Violation("pp", "found " + pp + (stages == pp ? "" : ", which with " + chunks
                    + " chunks per rank makes " + stages + " stages") + "; expected the stages to divide model.layers ("
                    + layers + "), or give parallelism.layersPerStage"));
        }
    }

    /**
     * Megatron-core's --overlap-param-gather needs the distributed optimizer (ZeRO 1 or 2), whose
     * updated weights it gathers, and --overlap-grad-reduce.
     */
    public static void overlapParamGather(List<Violation> out, boolean on, int zero, boolean overlapGradReduce) {
        if (on && zero != 1 && zero != 2) {
            out.add(new Violation("overlapParamGather", "found true with zero: " + zero + "; expected zero: 1 or 2: "
                    + "the updated weights are all-gathered only under the distributed optimizer (Megatron-core's "
                    + "--overlap-param-gather needs --use-distributed-optimizer)"));
        }
        if (on && !overlapGradReduce) {
            out.add(new Violation("overlapParamGather", "found true with overlapGradReduce: false; expected "
                    + "overlapGradReduce: true (Megatron-core's --overlap-param-gather needs --overlap-grad-reduce)"));
        }
    }

    /**
     * Megatron-core's --overlap-param-gather-with-optimizer-step needs --overlap-param-gather and
     * the interleaved schedule (megatron/training/arguments.py asserts both).
     */
    public static void overlapParamGatherWithOptimizerStep(List<Violation> out, boolean on, boolean overlapParamGather,
                                                           boolean interleaved) {
        if (on && !overlapParamGather) {
            out.add(new Violation("overlapParamGatherWithOptimizerStep", "found true with overlapParamGather: false; "
                    + "expected overlapParamGather: true (Megatron-LM: 'Must use --overlap-param-gather-with-optimizer-step "
                    + "with --overlap-param-gather')"));
        }
        if (on && !interleaved) {
            out.add(new Violation("overlapParamGatherWithOptimizerStep", "found true without the interleaved schedule; "
                    + "expected schedule.kind: interleaved (Megatron-LM: '--overlap-param-gather-with-optimizer-step only "
                    + "supported with interleaved pipeline parallelism')"));
        }
    }

    /**
     * Megatron-core's --overlap-moe-expert-parallel-comm: only under expert parallelism, on a
     * schedule it can combine (interleaved, or 1F1B without pipeline parallelism), without full
     * recomputation.
     *
     * @param schedule the schedule's kind, or {@code null} when not known yet (the rule on ep only)
     */
    public static void moeOverlap(List<Violation> out, boolean on, int ep, int pp, ScheduleKind schedule,
                                  LayerCostModel.Recompute recompute) {
        if (!on) {
            return;
        }
        if (schedule == null) {
            if (ep == 1) {
                out.add(new Violation("overlapMoeExpertParallelComm", "found true with ep: 1; expected ep > 1: "
                        + "Megatron-core overlaps the expert-parallel all-to-all only under expert parallelism"));
            }
            return;
        }
        boolean combinable = schedule == ScheduleKind.INTERLEAVED || (schedule == ScheduleKind.ONE_F_ONE_B && pp == 1);
        if (!combinable) {
            out.add(new Violation("overlapMoeExpertParallelComm", "found true with schedule.kind: " + schedule.id()
                    + " on pp " + pp + "; expected schedule.kind: interleaved (Megatron-core needs a virtual "
                    + "pipeline size when pp > 1), or 1f1b with pp: 1"));
        }
        if (recompute == LayerCostModel.Recompute.FULL) {
            out.add(new Violation("overlapMoeExpertParallelComm", "found true with training.recompute: full; "
                    + "Megatron-core disables full recomputation under the all-to-all overlap"));
        }
    }

    /** The layout fits the cluster, and all replicas or one are simulated. */
    public static void cluster(List<Violation> out, Mesh mesh, Topology topology, int replicas) {
        if (mesh.gpus() > topology.deviceCount()) {
            out.add(new Violation("nodes", "the layout needs " + mesh.gpus() + " GPUs; the cluster has "
                    + topology.deviceCount()));
        }
        if (replicas != mesh.dp() && replicas != 1) {
            out.add(new Violation("replicas", "simulate all " + mesh.dp() + " replicas or 1, not " + replicas));
        }
    }

    /**
     * Activation offload to the host as Megatron-core allows it ({@code TransformerConfig.__post_init__}:
     * "CPU offloading can be done only for layers less than num_layers", "no support for Pipeline
     * parallelism with CPU offloading", "does not work when activation recomputation is
     * enabled"): fewer layers than each stage holds, one pipeline stage, no recomputation.
     */
    public static void cpuOffload(List<Violation> out, int layers, int pp, LayerSplit split,
                                  LayerCostModel.Recompute recompute) {
        if (layers <= 0) {
            return;
        }
        if (pp > 1) {
            out.add(new Violation("cpuOffloadLayers", "found " + layers + " with pp " + pp + ", but Megatron-core "
                    + "offloads activations without pipeline parallelism only; expected pp 1 or no cpuOffloadLayers"));
            return;
        }
        if (recompute != null && recompute != LayerCostModel.Recompute.NONE) {
            out.add(new Violation("cpuOffloadLayers", "found " + layers + " with recompute: "
                    + recompute.name().toLowerCase(java.util.Locale.ROOT) + ", but Megatron-core does not offload "
                    + "activations under recomputation; expected recompute: none"));
            return;
        }
        if (split != null) {
            for (int st = 0; st < split.stages(); st++) {
                if (layers >= split.layers(st)) {
                    out.add(new Violation("cpuOffloadLayers", "found " + layers + ", but stage " + st + " holds "
                            + split.layers(st) + " layers; expected fewer than that (Megatron-core keeps at least "
                            + "the last layer's activations on the GPU)"));
                    return;
                }
            }
        }
    }

    /**
     * The rules among the parallel layout's own settings (no model or batch needed), on a builder
     * holding them: the mesh may not be valid yet (an expert fold that does not fit is one of them).
     */
    public static List<Violation> layout(LayoutBuilder b) {
        List<Violation> out = new ArrayList<>();
        tpCommOverlap(out, b.tp, b.sequenceParallel, b.tpCommOverlap);
        expertFold(out, b.tp, b.cp, b.dp, b.ep, b.etp());
        zeroStage(out, b.zero);
        zero3Experts(out, b.zero, b.tp, b.ep, b.etp());
        shardGroup(out, b.shardGroup, b.zero, b.dp, b.cp);
        zero3Options(out, b.zero, b.sharding == null ? ShardingOptions.defaults() : b.sharding);
        return out;
    }

    /** Every rule, on the parts of a step. */
    public static List<Violation> check(TransformerModel model, Topology topology, Layout layout, Pipelines pipelines,
                                        BatchShape batch) {
        List<Violation> out = layout(Layout.builder().layout(layout));
        Mesh m = layout.mesh();
        ZeroSharding z = layout.zero();
        StagePlacement placement = pipelines.schedule().placement(m.pp(), Math.max(1, batch.microbatches()));
        deepSpeed(out, z.stage(), z.options().impl(), m.pp(), placement.chunksPerRank());
        experts(out, model, m.tp(), m.ep(), m.etp());
        parallelBlocks(out, model, m.tp(), layout.comm().tpCommOverlap());
        contextParallel(out, m.cp(), batch.seqLen());
        allToAll(out, layout.comm().allToAll(), model, m.ep());
        LayerSplit split = pipelines.split();
        int[] perStage = split == null ? null : java.util.stream.IntStream.range(0, split.stages())
                .map(split::layers).toArray();
        layerSplit(out, perStage, placement.stages(), m.pp(), placement.chunksPerRank(), model.layers());
        cluster(out, m, topology, pipelines.replicas());
        return out;
    }

    /**
     * Throws the first broken rule's message.
     *
     * @throws IllegalArgumentException when a rule is broken
     */
    public static void require(TransformerModel model, Topology topology, Layout layout, Pipelines pipelines,
                               BatchShape batch) {
        List<Violation> out = check(model, topology, layout, pipelines, batch);
        if (!out.isEmpty()) {
            throw new IllegalArgumentException(out.get(0).message());
        }
    }
}
