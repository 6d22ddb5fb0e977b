package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * The three ZeRO-3 frameworks on one DGX H100 (dp 8, tp 1, pp 1) with {@link TrainingStepTest#SMALL}
 * (8 layers, h 2048, 16 heads, GELU ffn 8192): per layer q, k, v, o 2048 x 2048 = 4,194,304 each,
 * fc1 and fc2 2048 x 8192 = 16,777,216 each, two norms of 2048: 50,335,744 parameters, 8 tensors.
 */
class Zero3ImplTest {
    static final Topology NODE = SwitchedClusterSpec.dgxH100(1).build();
    static final double LAYER = 50_335_744;
    static final double PARTITIONED = LAYER - 2 * 2048;
    /** H100 profile: 3.35 TB/s at 0.8985, launches of 5 us host and 1.17 us gap. */
    static final double STREAM = 3.35e12 * 0.8985;
    static final double GAP_NS = 1170;

    static TrainingStep step(ShardingOptions o, int m) {
        return TrainingStepTest.small(NODE).sizes(1, 1, 1, 8).zero(3).batch(m, 1, 2048).build().withSharding(o);
    }

    /** One microbatch's uses in program order: forward L0..L7, backward L7..L0. */
    static List<ShardedWeights.Use> microstep(ShardedWeights w) {
        java.util.ArrayList<ShardedWeights.Use> out = new java.util.ArrayList<>();
        for (int l = 0; l < 8; l++) {
            out.add(w.use(0, l, Pass.F, -1, -1));
        }
        for (int l = 7; l >= 0; l--) {
            out.add(w.use(0, l, Pass.B, -1, -1));
        }
        return out;
    }

    static int gathers(List<ShardedWeights.Use> uses) {
        return uses.stream().mapToInt(u -> u.issued.size()).sum();
    }

    @Test
    void layerTensorsAddUpToTheLayer() {
        List<LayerTensors.Tensor> t = LayerTensors.of(step(ShardingOptions.defaults(), 1).parameters(), 0);
        assertEquals(8, t.size());
        assertEquals(LAYER, t.stream().mapToDouble(LayerTensors.Tensor::numel).sum(), 1e-6);
        assertEquals(4_194_304, t.get(1).numel(), 1e-6);
        assertEquals(16_777_216, t.get(7).numel(), 1e-6);
    }

    @Test
    void megatronFsdpGathersEveryLayerForEveryPassWithoutCopies() {
        List<ShardedWeights.Use> uses = microstep(new ShardedWeights(step(ShardingOptions.defaults(), 1)));
        for (ShardedWeights.Use u : uses) {
            assertEquals(1, u.issued.size());
            assertEquals(LAYER, u.issued.get(0).params, 1e-6);
            assertEquals(0, u.beforeNs);
        }
        assertEquals(4, step(ShardingOptions.defaults(), 1).shardedGradReduceBytes(), "main gradients, fp32");
    }

    @Test
    void fsdp2GathersWholeBlocksAndCopiesThemOutOnTheComputeStream() {
        List<ShardedWeights.Use> uses = microstep(new ShardedWeights(step(ShardingOptions.of(Zero3Impl.FSDP2), 1)));
        assertEquals(16, gathers(uses), "reshard after forward: every block gathered for F and again for B");
        // split_with_sizes_copy reads and writes the block's bf16 weights once: 4 bytes a parameter
        double copyOut = 4 * LAYER / STREAM * 1e9 + GAP_NS;
        for (ShardedWeights.Use u : uses) {
            assertEquals(LAYER, u.issued.get(0).params, 1e-6);
            assertEquals(8, u.issued.get(0).tensors);
            assertEquals(copyOut, u.beforeNs, 1);
        }
        assertEquals(4, step(ShardingOptions.of(Zero3Impl.FSDP2), 1).shardedGradReduceBytes(), "reduce_dtype fp32");
    }

    @Test
    void fsdp2WithoutReshardAfterForwardGathersNothingInTheBackward() {
        ShardingOptions keep = new ShardingOptions(Zero3Impl.FSDP2, false, 0, ShardingOptions.DeepSpeedConfig.DEFAULTS);
        ShardedWeights w = new ShardedWeights(step(keep, 2));
        List<ShardedWeights.Use> first = microstep(w);
        List<ShardedWeights.Use> second = microstep(w);
        for (int i = 0; i < 16; i++) {
            assertEquals(i < 8 ? 1 : 0, first.get(i).issued.size(), "use " + i);
            assertEquals(i < 8, first.get(i).beforeNs > 0, "a copy-out only after a gather, use " + i);
        }
        // the backward resharded them: the next microbatch's forward gathers again
        assertEquals(8, gathers(second));
    }

    @Test
    void keepingBlocksGatheredCostsTheRestOfTheStageInMemory() {
        ShardingOptions keep = new ShardingOptions(Zero3Impl.FSDP2, false, 0, ShardingOptions.DeepSpeedConfig.DEFAULTS);
        double resharding = new MemoryModel(step(ShardingOptions.of(Zero3Impl.FSDP2), 2)).states(0).weights();
        double keeping = new MemoryModel(step(keep, 2)).states(0).weights();
        // all 8 blocks unsharded at the end of the forward instead of the one computing: 7 more, bf16
        assertEquals(2 * 7 * LAYER, keeping - resharding, 1);
        // and besides the unsharded blocks, FSDP2 keeps two all-gather outputs: 3 blocks with resharding
        double shard = 2 * step(ShardingOptions.defaults(), 2).stageParams(0) / 8;
        assertEquals(shard + 2 * 3 * LAYER, resharding, 1);
    }

    @Test
    void fsdp2BuildsOneGatherPerBlockAndPassAndNoneInTheBackwardWithoutReshard() {
        ShardingOptions keep = new ShardingOptions(Zero3Impl.FSDP2, false, 0, ShardingOptions.DeepSpeedConfig.DEFAULTS);
        assertEquals(8 * 2 * 2, count(step(ShardingOptions.of(Zero3Impl.FSDP2), 2).build().graph(), "fsdp all-gather L",
                "copy-in"));
        assertEquals(8 * 2, count(step(keep, 2).build().graph(), "fsdp all-gather L", "copy-in"));
        assertEquals(8 * 2, count(step(keep, 2).build().graph(), "fsdp reduce-scatter L", " "),
                "gradients still reduced after every microbatch");
    }

    @Test
    void fsdp2CopiesLengthenTheStepByAboutTheCopyOutsOnTheComputeStream() {
        long megatron = TrainingStepTest.run(step(ShardingOptions.defaults(), 2)).timeline().makespan();
        long fsdp2 = TrainingStepTest.run(step(ShardingOptions.of(Zero3Impl.FSDP2), 2)).timeline().makespan();
        double copyOuts = 2 * 2 * 8 * (4 * LAYER / STREAM * 1e9 + GAP_NS);
        assertTrue(fsdp2 > megatron + 0.9 * copyOuts, () -> fsdp2 + " vs " + megatron + " + " + copyOuts);
        assertTrue(fsdp2 < megatron + 1.2 * copyOuts, () -> fsdp2 + " vs " + megatron + " + " + copyOuts);
    }

    @Test
    void deepSpeedPrefetchesInBucketsAndKeepsASmallModelGatheredIntoTheBackward() {
        ShardedWeights w = new ShardedWeights(step(ShardingOptions.of(Zero3Impl.DEEPSPEED), 1));
        List<ShardedWeights.Use> uses = microstep(w);
        // the (persistent) input norm's pre-hook prefetches from the trace until 5e7 elements: q, k,
        // v, o and fc1 make 33,554,432, fc2 brings it to 50,331,648 and stops it: layer 0 in one gather
        ShardedWeights.Gather first = uses.get(0).issued.get(0);
        assertEquals(PARTITIONED, first.params, 1e-6);
        assertEquals(6, first.tensors);
        // 8 layers x 50.3 M partitioned elements stay within max_live (1e9) and within the reuse
        // distance (1e9) of their backward use: nothing is released, the backward gathers nothing
        for (int i = 8; i < 16; i++) {
            assertEquals(0, uses.get(i).issued.size(), "backward use " + i);
            assertEquals(8 * 40_000, uses.get(i).beforeNs, 1e-6, "only the 8 submodules' hooks");
        }
        assertEquals(8 * PARTITIONED, uses.stream().flatMap(u -> u.issued.stream()).mapToDouble(g -> g.params).sum(),
                1e-3);
        assertEquals(2, step(ShardingOptions.of(Zero3Impl.DEEPSPEED), 1).shardedGradReduceBytes(),
                "communication_data_type: bf16");
        double weights = new MemoryModel(step(ShardingOptions.of(Zero3Impl.DEEPSPEED), 1)).states(0).weights();
        double shard = 2 * step(ShardingOptions.defaults(), 1).stageParams(0) / 8;
        assertEquals(shard + 2 * 8 * PARTITIONED, weights, 1);
    }

    @Test
    void deepSpeedWithLittleRoomReleasesAndGathersAgainInTheBackward() {
        ShardingOptions tight = new ShardingOptions(Zero3Impl.DEEPSPEED, true, 0,
                new ShardingOptions.DeepSpeedConfig(20_000_000, 60_000_000, 0, 100_000, 500_000_000));
        List<ShardedWeights.Use> uses = microstep(new ShardedWeights(step(tight, 1)));
        // released after their forward, the layers are gathered again for the backward (prefetched
        // by the hooks of the layer before; the last layers of the forward may still be held)
        double backward = uses.subList(8, 16).stream().flatMap(u -> u.issued.stream()).mapToDouble(g -> g.params).sum();
        assertTrue(backward >= 6 * PARTITIONED, () -> "backward gathered " + backward);
        DeepSpeedCoordinator c = new DeepSpeedCoordinator(DeepSpeedZero3.stageTensors(step(tight, 1)),
                tight.deepSpeed());
        for (int l = 0; l < 8; l++) {
            c.pass(l, true);
        }
        // live stays under max_live plus the one tensor a prefetch may overshoot by (fc 16.8 M)
        assertTrue(c.peakLive() <= 60_000_000 + 16_777_216, () -> "peak " + c.peakLive());
    }

    @Test
    void deepSpeedReducesInBucketsOfReduceBucketSize() {
        // 5e8 elements hold 9 layers: one reduce-scatter per microbatch at the end of the backward
        TaskGraph g = step(ShardingOptions.of(Zero3Impl.DEEPSPEED), 2).build().graph();
        assertEquals(2, count(g, "zero3 reduce-scatter", "accumulate"));
        ShardingOptions small = new ShardingOptions(Zero3Impl.DEEPSPEED, true, 0,
                new ShardingOptions.DeepSpeedConfig(50_000_000, 1_000_000_000, 1_000_000_000, 100_000, 120_000_000));
        // 120 M elements: two layers a bucket, 4 buckets per backward
        assertEquals(2 * 4, count(step(small, 2).build().graph(), "zero3 reduce-scatter", "accumulate"));
    }

    @Test
    void optionsOfOtherFrameworksOrStagesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ShardingOptions(Zero3Impl.DEEPSPEED, false, 0,
                ShardingOptions.DeepSpeedConfig.DEFAULTS));
        assertThrows(IllegalArgumentException.class, () -> new ShardingOptions(Zero3Impl.FSDP2, true, 3,
                ShardingOptions.DeepSpeedConfig.DEFAULTS));
        assertThrows(IllegalArgumentException.class, () -> TrainingStepTest.small(NODE).sizes(1, 1, 1, 8).zero(1)
                .build()
                .withSharding(ShardingOptions.of(Zero3Impl.FSDP2)));
        assertThrows(IllegalArgumentException.class, () -> TrainingStepTest.small(NODE).sizes(1, 1, 2, 4).zero(3)
                .batch(2, 1, 2048).build()
                .withSharding(ShardingOptions.of(Zero3Impl.DEEPSPEED)));
    }

    /** Tasks whose name starts with {@code prefix} and does not contain {@code without}. */
    static int count(TaskGraph g, String prefix, String without) {
        int n = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            String name = g.task(i).name();
            n += name.startsWith(prefix) && !name.substring(prefix.length()).contains(without) ? 1 : 0;
        }
        return n;
    }
}
