package org.clustersim.strategies.training;

import static org.clustersim.strategies.training.Zero3ImplTest.LAYER;
import static org.clustersim.strategies.training.Zero3ImplTest.PARTITIONED;
import static org.clustersim.strategies.training.Zero3ImplTest.STREAM;
import static org.clustersim.strategies.training.Zero3ImplTest.count;
import static org.clustersim.strategies.training.Zero3ImplTest.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.clustersim.core.engine.TaskGraph;
import org.junit.jupiter.api.Test;

/**
 * Each {@link ShardingFramework} asked directly, on {@link Zero3ImplTest}'s step (8 layers of
 * {@code LAYER} parameters, dp 8, one stage, main gradients fp32), against what each framework is
 * documented to do: its default reduce type, its options, what it holds in memory and the tasks
 * it adds per microbatch. The expectations are written out from the frameworks' documents, not
 * from the implementation's formulas.
 */
class ShardingFrameworkTest {
    private static final ShardingOptions KEEP = new ShardingOptions(Zero3Impl.FSDP2, false, 0,
            ShardingOptions.DeepSpeedConfig.DEFAULTS);

    /** The H100 profile's launch model: each kernel its share plus a 1.17 us gap, at least 5 us of host time. */
    private static double kernels(double bytes, int n) {
        return n * Math.max(bytes / STREAM * 1e9 / n + 1170, 5000);
    }

    /** Tasks whose name starts with {@code prefix} (no task name holds an @). */
    private static int all(TaskGraph g, String prefix) {
        return count(g, prefix, "@");
    }

    private static ShardingFramework framework(Zero3Impl impl) {
        return impl.framework();
    }

    @Test
    void everyImplementationHasItsOwnFramework() {
        Set<Class<?>> classes = new HashSet<>();
        for (Zero3Impl impl : Zero3Impl.values()) {
            assertTrue(classes.add(impl.framework().getClass()), impl + " shares its framework class");
        }
        assertSame(MegatronFsdp.class, framework(Zero3Impl.MEGATRON_FSDP).getClass());
        assertSame(Fsdp2.class, framework(Zero3Impl.FSDP2).getClass());
        assertSame(DeepSpeedZero3.class, framework(Zero3Impl.DEEPSPEED).getClass());
    }

    @Test
    void reduceTypesAndOptionsAreEachFrameworksOwn() {
        // Megatron-FSDP: grad_comm_dtype None means main_grads_dtype
        assertEquals(4, framework(Zero3Impl.MEGATRON_FSDP).defaultReduceBytes(4));
        assertEquals(2, framework(Zero3Impl.MEGATRON_FSDP).defaultReduceBytes(2));
        // FSDP2 (torchtitan): reduce_dtype float32 whatever the main gradients
        assertEquals(4, framework(Zero3Impl.FSDP2).defaultReduceBytes(2));
        // DeepSpeed: communication_data_type, the bf16 training type
        assertEquals(2, framework(Zero3Impl.DEEPSPEED).defaultReduceBytes(4));

        assertTrue(framework(Zero3Impl.FSDP2).keepsGatheredWeightsAfterForward());
        assertFalse(framework(Zero3Impl.MEGATRON_FSDP).keepsGatheredWeightsAfterForward());
        assertFalse(framework(Zero3Impl.DEEPSPEED).keepsGatheredWeightsAfterForward());

        assertTrue(framework(Zero3Impl.MEGATRON_FSDP).pipelineRefusal().isEmpty());
        assertTrue(framework(Zero3Impl.FSDP2).pipelineRefusal().isEmpty());
        assertTrue(framework(Zero3Impl.DEEPSPEED).pipelineRefusal().orElseThrow().contains("pipeline engine"));
    }

    @Test
    void memoryIsWhatEachFrameworkHoldsUnsharded() {
        TrainingStep megatron = step(ShardingOptions.defaults(), 1);
        TrainingStep fsdp2 = step(ShardingOptions.of(Zero3Impl.FSDP2), 1);
        TrainingStep keep = step(KEEP, 1);
        TrainingStep deepSpeed = step(ShardingOptions.of(Zero3Impl.DEEPSPEED), 1);
        // two units of bf16 weights (double buffers)
        assertEquals(2 * 2 * LAYER, framework(Zero3Impl.MEGATRON_FSDP).gatheredWeightBytes(megatron, 0), 1);
        // the computing block plus two all-gather outputs; without resharding all 8 blocks plus two
        assertEquals(2 * 3 * LAYER, framework(Zero3Impl.FSDP2).gatheredWeightBytes(fsdp2, 0), 1);
        assertEquals(2 * 10 * LAYER, framework(Zero3Impl.FSDP2).gatheredWeightBytes(keep, 0), 1);
        // 8 layers fit under max_live and the reuse distance: every partitioned parameter gathered
        assertEquals(2 * 8 * PARTITIONED, framework(Zero3Impl.DEEPSPEED).gatheredWeightBytes(deepSpeed, 0), 1);

        // two units of fp32 main gradients
        assertEquals(2 * 4 * LAYER, framework(Zero3Impl.MEGATRON_FSDP).gradientBufferBytes(megatron), 1);
        // a block's bf16 gradients plus two fp32 reduce-scatter inputs
        assertEquals((2 + 2 * 4) * LAYER, framework(Zero3Impl.FSDP2).gradientBufferBytes(fsdp2), 1);
        // the 5e8-element bf16 reduce bucket plus one layer's bf16 gradients
        assertEquals(5e8 * 2 + 2 * LAYER, framework(Zero3Impl.DEEPSPEED).gradientBufferBytes(deepSpeed), 1);
    }

    @Test
    void copyInsBeforeAGatherAreEachFrameworksOwn() {
        ShardedWeights.Gather g = new ShardedWeights.Gather("g", LAYER, 8);
        double shard = LAYER / 8;
        assertEquals(0, framework(Zero3Impl.MEGATRON_FSDP).gathers(step(ShardingOptions.defaults(), 1)).copyInNs(g));
        // a cast per parameter (4-byte shard in, 2 out), then one foreach copy (2 in, 2 out)
        assertEquals(kernels(6 * shard, 8) + kernels(4 * shard, 1),
                framework(Zero3Impl.FSDP2).gathers(step(ShardingOptions.of(Zero3Impl.FSDP2), 1)).copyInNs(g), 1e-6);
        // one torch.cat of the bf16 shards
        assertEquals(kernels(4 * shard, 1),
                framework(Zero3Impl.DEEPSPEED).gathers(step(ShardingOptions.of(Zero3Impl.DEEPSPEED), 1)).copyInNs(g),
                1e-6);
    }

    @Test
    void eachFrameworkAddsItsOwnTasksPerMicrobatch() {
        int m = 2;
        TaskGraph megatron = step(ShardingOptions.defaults(), m).build().graph();
        // a gather per layer and pass, no copies; a reduce-scatter per layer
        assertEquals(m * 16, count(megatron, "fsdp all-gather L", " "));
        assertEquals(m * 16, all(megatron, "fsdp all-gather L"), "no copy-ins");
        assertEquals(m * 8, count(megatron, "fsdp reduce-scatter L", " "));
        assertEquals(m * 8, all(megatron, "fsdp reduce-scatter L"), "no copy-in, no accumulation");

        TaskGraph fsdp2 = step(ShardingOptions.of(Zero3Impl.FSDP2), m).build().graph();
        // each gather after its copy-in; each reduce-scatter between a copy-in and an accumulation
        assertEquals(m * 16, count(fsdp2, "fsdp all-gather L", " "));
        assertEquals(m * 16 * 2, all(fsdp2, "fsdp all-gather L"));
        assertEquals(m * 8, count(fsdp2, "fsdp reduce-scatter L", " "));
        assertEquals(m * 8 * 3, all(fsdp2, "fsdp reduce-scatter L"));

        TaskGraph deepSpeed = step(ShardingOptions.of(Zero3Impl.DEEPSPEED), m).build().graph();
        // every gradient copied into the bucket, one reduce-scatter and accumulation per backward
        assertEquals(m * 8, all(deepSpeed, "zero3 grad copy L"));
        assertEquals(m, count(deepSpeed, "zero3 reduce-scatter to L0", " "));
        assertEquals(m * 2, all(deepSpeed, "zero3 reduce-scatter to L0"));
        assertEquals(0, all(deepSpeed, "fsdp "), "none of the FSDP tasks");
    }
}
