package org.clustersim.strategies.training;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * PyTorch's {@code fully_shard} on each block ({@link Zero3Impl#FSDP2}): one gather per layer,
 * issued one layer ahead, a copy-in before it (one cast per parameter from the fp32 shards to
 * bf16, then a foreach copy into the all-gather input) and a copy-out after it on the compute
 * stream ({@code split_with_sizes_copy}); without {@code reshard_after_forward} a layer stays
 * gathered from its forward until its backward ends, so the backward gathers nothing.
 * Reduce-scatters in {@code reduce_dtype} (fp32 by default) after a {@code chunk_cat} copy-in and
 * before a per-parameter accumulation into the sharded gradient. In memory: the blocks held
 * unsharded plus two all-gather output buffers (the current one stays referenced until the next
 * block's copy-in, "Overlapping all-gather copy-in and all-gather" in _fsdp_param_group.py); in
 * the backward one block's bf16 gradients and two reduce-scatter inputs (the previous one is
 * kept in {@code reduce_scatter_state} until the next is issued).
 */
final class Fsdp2 implements ShardingFramework {
    @Override
    public int defaultReduceBytes(int mainGradBytes) {
        // torchtitan's mixed_precision_reduce default: reduce_dtype=float32
        return 4;
    }

    @Override
    public boolean keepsGatheredWeightsAfterForward() {
        return true;
    }

    @Override
    public Optional<String> pipelineRefusal() {
        return Optional.empty();
    }

    @Override
    public double gatheredWeightBytes(TrainingStep step, int p) {
        double maxLayer = step.parameters().maxLayer();
        return 2 * ((step.sharding().reshardAfterForward() ? maxLayer : rankLayers(step, p)) + 2 * maxLayer);
    }

    @Override
    public double gradientBufferBytes(TrainingStep step) {
        return step.parameters().maxLayer() * (2 + 2.0 * step.shardedGradReduceBytes());
    }

    /** Layer parameters of every chunk pipeline rank {@code p} holds. */
    private static double rankLayers(TrainingStep step, int p) {
        var placement = step.schedule().placement(step.pp(), step.microbatches());
        double sum = 0;
        for (int chunk = 0; chunk < placement.chunksPerRank(); chunk++) {
            sum += step.parameters().stageLayers(placement.stageOfChunk(p, chunk));
        }
        return sum;
    }

    @Override
    public Gathers gathers(TrainingStep step) {
        return new Step(step);
    }

    /** One step's gathers: which layers each rank holds unsharded. */
    private static final class Step implements Gathers {
        private final TrainingStep step;
        private final GpuParameters params;
        private final Map<Integer, boolean[]> unsharded = new HashMap<>();

        Step(TrainingStep step) {
            this.step = step;
            this.params = step.parameters();
        }

        @Override
        public ShardedWeights.Use use(int firstDevice, int layer, Pass p, int previousStart, int start) {
            boolean[] held = unsharded.computeIfAbsent(firstDevice, k -> new boolean[step.model().layers()]);
            ShardedWeights.Use use;
            if (held[layer]) {
                use = new ShardedWeights.Use(layer, -1, List.of(), List.of(), 0);
            } else {
                ShardedWeights.Gather g = new ShardedWeights.Gather("fsdp all-gather L" + layer, params.layer(layer),
                        LayerTensors.of(params, layer).size());
                // split_with_sizes_copy: the gathered bf16 buffer into the unsharded parameters
                use = new ShardedWeights.Use(layer, previousStart, List.of(g), List.of(g),
                        step.kernels().memory(2.0 * 2 * g.params, 1));
                held[layer] = true;
            }
            if (p.backward() || step.sharding().reshardAfterForward()) {
                held[layer] = false;
            }
            return use;
        }

        @Override
        public double copyInNs(ShardedWeights.Gather g) {
            double shard = g.params / step.shardSize();
            // one cast per parameter (fp32 shard in, bf16 out), then the foreach copy (bf16 in and out)
            return step.kernels().memory(6.0 * shard, g.tensors) + step.kernels().memory(4.0 * shard, 1);
        }

        @Override
        public Reductions reductions(ShardCollectives out) {
            int reduceBytes = step.shardedGradReduceBytes();
            return (layer, done) -> {
                double numel = params.layer(layer);
                int tensors = LayerTensors.of(params, layer).size();
                String name = "fsdp reduce-scatter L" + layer;
                // chunk_cat: the bf16 gradients into the reduce_dtype reduce-scatter input
                int copy = out.copy(name + " copy-in", "fsdp-rs", step.kernels().memory((2.0 + reduceBytes) * numel, 1),
                        done);
                int r = out.reduceScatter(name, numel, reduceBytes, new int[] {copy});
                out.optimizerWaitsFor(out.accumulate(name, numel, tensors, reduceBytes, r));
            };
        }
    }
}
