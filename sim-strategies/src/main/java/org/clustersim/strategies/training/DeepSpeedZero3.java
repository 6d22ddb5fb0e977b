package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * DeepSpeed's stage 3 ({@link Zero3Impl#DEEPSPEED}): the gathers {@link DeepSpeedCoordinator}
 * issues from each layer's submodule hooks, each after a copy-in ({@code torch.cat} of the
 * shards) and, once waited for, a copy-out per parameter on the compute stream, plus the hooks'
 * host time; gradients copied into the reduce bucket and reduce-scattered in
 * {@code communication_data_type} whenever {@code reduce_bucket_size} elements are full and at
 * the end of the backward. In memory: the most parameters the coordinator holds gathered over a
 * micro-step ({@link DeepSpeedCoordinator#peakLive}), the reduce bucket (allocated once) and one
 * layer's bf16 gradients. Its pipeline engine takes ZeRO 0 or 1 only.
 */
final class DeepSpeedZero3 implements ShardingFramework {
    @Override
    public int defaultReduceBytes(int mainGradBytes) {
        // engine.communication_data_type: the training type, 2 bytes under bf16 and fp16
        return 2;
    }

    @Override
    public boolean keepsGatheredWeightsAfterForward() {
        return false;
    }

    @Override
    public Optional<String> pipelineRefusal() {
        return Optional.of("DeepSpeed's pipeline engine runs ZeRO 0 or 1 only");
    }

    @Override
    public double gatheredWeightBytes(TrainingStep step, int p) {
        List<List<LayerTensors.Tensor>> layers = stageTensors(step);
        DeepSpeedCoordinator c = new DeepSpeedCoordinator(layers, step.sharding().deepSpeed());
        for (int l = 0; l < layers.size(); l++) {
            c.pass(l, true);
        }
        for (int l = layers.size() - 1; l >= 0; l--) {
            c.pass(l, false);
        }
        return 2 * c.peakLive();
    }

    @Override
    public double gradientBufferBytes(TrainingStep step) {
        return step.sharding().deepSpeed().reduceBucket() * (double) step.shardedGradReduceBytes()
                + 2 * step.parameters().maxLayer();
    }

    /** The tensors of the layers of stage 0, the only one (DeepSpeed runs ZeRO 3 on one stage). */
    static List<List<LayerTensors.Tensor>> stageTensors(TrainingStep step) {
        List<List<LayerTensors.Tensor>> layers = new ArrayList<>();
        GpuParameters params = step.parameters();
        int first = step.split().firstLayer(0);
        for (int l = first; l < first + step.split().layers(0); l++) {
            layers.add(LayerTensors.of(params, l));
        }
        return layers;
    }

    @Override
    public Gathers gathers(TrainingStep step) {
        return new Step(step);
    }

    /** One step's gathers: each rank's coordinator and its gathers by sequence number. */
    private static final class Step implements Gathers {
        private final TrainingStep step;
        private final Map<Integer, DeepSpeedCoordinator> coordinators = new HashMap<>();
        private final Map<Integer, List<ShardedWeights.Gather>> gathers = new HashMap<>();

        Step(TrainingStep step) {
            this.step = step;
        }

        @Override
        public ShardedWeights.Use use(int firstDevice, int layer, Pass p, int previousStart, int start) {
            DeepSpeedCoordinator c = coordinators.computeIfAbsent(firstDevice,
                    k -> new DeepSpeedCoordinator(stageTensors(step), step.sharding().deepSpeed()));
            List<ShardedWeights.Gather> bySeq = gathers.computeIfAbsent(firstDevice, k -> new ArrayList<>());
            DeepSpeedCoordinator.Fetch f = c.pass(layer - step.split().firstLayer(0), p == Pass.F);
            List<ShardedWeights.Gather> issued = new ArrayList<>();
            for (DeepSpeedCoordinator.Gather g : f.issued()) {
                ShardedWeights.Gather x = new ShardedWeights.Gather("zero3 all-gather L" + layer + " #" + g.seq(),
                        g.numel(), g.tensors());
                bySeq.add(x);
                issued.add(x);
            }
            List<ShardedWeights.Gather> needs = new ArrayList<>();
            for (int seq : f.awaited()) {
                ShardedWeights.Gather g = bySeq.get(seq);
                if (!needs.contains(g)) {
                    needs.add(g);
                }
            }
            double before = f.submodules() * step.device().sharding().deepspeedSubmoduleNs()
                    + (f.copyOutTensors() > 0 ? step.kernels().memory(2.0 * 2 * f.copyOutNumel(), f.copyOutTensors())
                    : 0);
            // issued once the layer whose hook issues them may start
            return new ShardedWeights.Use(layer, start, issued, needs, before);
        }

        @Override
        public double copyInNs(ShardedWeights.Gather g) {
            // torch.cat of the bf16 shards into the flat all-gather input
            return step.kernels().memory(4.0 * (g.params / step.shardSize()), 1);
        }

        @Override
        public Reductions reductions(ShardCollectives out) {
            return new Bucket(step, out);
        }
    }

    /** One gradient group's reduce bucket, filled across layers and flushed when full. */
    private static final class Bucket implements Reductions {
        private final TrainingStep step;
        private final ShardCollectives out;
        private final int reduceBytes;
        private double elements;
        private int tensors;
        private List<Integer> waiting = new ArrayList<>();

        Bucket(TrainingStep step, ShardCollectives out) {
            this.step = step;
            this.out = out;
            this.reduceBytes = step.shardedGradReduceBytes();
        }

        @Override
        public void add(int layer, int[] done) {
            GpuParameters params = step.parameters();
            double numel = params.layer(layer);
            int layerTensors = LayerTensors.of(params, layer).size();
            if (elements > 0 && elements + numel > step.sharding().deepSpeed().reduceBucket()) {
                flush(layer);
            }
            // each gradient copied into the contiguous reduce bucket
            waiting.add(out.copy("zero3 grad copy L" + layer, "fsdp-rs", step.kernels().memory(4.0 * numel,
                    layerTensors), done));
            elements += numel;
            tensors += layerTensors;
            if (layer == step.split().firstLayer(0)) {
                // the end of the backward: independent_gradient_partition_epilogue
                flush(layer);
            }
        }

        /** The reduce-scatter of the bucket, then its accumulation into the fp32 partition. */
        private void flush(int layer) {
            int[] deps = waiting.stream().mapToInt(Integer::intValue).toArray();
            String name = "zero3 reduce-scatter to L" + layer;
            int r = out.reduceScatter(name, elements, reduceBytes, deps);
            out.optimizerWaitsFor(out.accumulate(name, elements, tensors, reduceBytes, r));
            elements = 0;
            tensors = 0;
            waiting = new ArrayList<>();
        }
    }
}
