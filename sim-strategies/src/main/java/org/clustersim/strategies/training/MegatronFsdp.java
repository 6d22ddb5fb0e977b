package org.clustersim.strategies.training;

import java.util.List;
import java.util.Optional;

/**
 * Megatron-core's Megatron-FSDP ({@link Zero3Impl#MEGATRON_FSDP}): one FSDP unit per layer,
 * gathered as one bucket per pass when the layer before starts (double buffering), no copies
 * (parameters and gradients live in the communication buffers), one reduce-scatter per layer in
 * the main gradients' type; two units of gathered weights and two of unsharded main gradients
 * in memory ("at least two FSDP units worth of un-sharded weight memory ... of un-sharded
 * gradient memory", docs/user-guide/features/megatron_fsdp.md).
 */
final class MegatronFsdp implements ShardingFramework {
    @Override
    public int defaultReduceBytes(int mainGradBytes) {
        // grad_comm_dtype None means main_grads_dtype
        return mainGradBytes;
    }

    @Override
    public boolean keepsGatheredWeightsAfterForward() {
        return false;
    }

    @Override
    public Optional<String> pipelineRefusal() {
        return Optional.empty();
    }

    @Override
    public double gatheredWeightBytes(TrainingStep step, int p) {
        return 2 * 2 * step.parameters().maxLayer();
    }

    @Override
    public double gradientBufferBytes(TrainingStep step) {
        return 2 * step.parameters().maxLayer() * step.shardedGradReduceBytes();
    }

    @Override
    public Gathers gathers(TrainingStep step) {
        GpuParameters params = step.parameters();
        int reduceBytes = step.shardedGradReduceBytes();
        return new Gathers() {
            @Override
            public ShardedWeights.Use use(int firstDevice, int layer, Pass p, int previousStart, int start) {
                ShardedWeights.Gather g = new ShardedWeights.Gather("fsdp all-gather L" + layer, params.layer(layer), 1);
                return new ShardedWeights.Use(layer, previousStart, List.of(g), List.of(g), 0);
            }

            @Override
            public double copyInNs(ShardedWeights.Gather g) {
                return 0;
            }

            @Override
            public Reductions reductions(ShardCollectives out) {
                return (layer, done) -> out.optimizerWaitsFor(out.reduceScatter("fsdp reduce-scatter L" + layer,
                        params.layer(layer), reduceBytes, done));
            }
        };
    }
}
