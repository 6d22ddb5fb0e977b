package org.clustersim.strategies.training;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which framework runs ZeRO-3 (full sharding of weights, gradients and optimizer states). They
 * share the idea and differ in what they gather at once, how far ahead, what they keep and what
 * each collective costs besides its bytes:
 *
 * <ul>
 *   <li>{@link #MEGATRON_FSDP}: Megatron-core's Megatron-FSDP ({@code optim_grads_params}), one
 *       FSDP unit per transformer layer gathered as one bucket into persistently allocated
 *       double buffers (two units unsharded at any time, the next one prefetched), gradients
 *       reduce-scattered per unit in the main-gradient type after every microbatch's backward;
 *       parameters and gradients live in the communication buffers, so no copies
 *       (NVIDIA/Megatron-LM, megatron/core/distributed/fsdp, docs/user-guide/features/megatron_fsdp.md).</li>
 *   <li>{@link #FSDP2}: PyTorch's {@code fully_shard} on each transformer block: one all-gather of
 *       all the block's parameters, implicit forward prefetch and explicit backward prefetch of
 *       one block, a copy-in kernel before each all-gather and a copy-out on the compute stream
 *       after it, a copy-in (with the cast to {@code reduce_dtype}) before each reduce-scatter;
 *       {@code reshard_after_forward} (pytorch/pytorch, torch/distributed/fsdp/_fully_shard/
 *       _fsdp_param_group.py, _fsdp_collectives.py).</li>
 *   <li>{@link #DEEPSPEED}: DeepSpeed's stage 3: per-submodule fetches driven by a recorded trace,
 *       prefetch coalesced up to {@code stage3_prefetch_bucket_size}, at most
 *       {@code stage3_max_live_parameters} gathered, parameters reused within
 *       {@code stage3_max_reuse_distance} kept, small parameters persistent, gradients reduced in
 *       buckets of {@code reduce_bucket_size} in {@code communication_data_type}
 *       (deepspeedai/DeepSpeed, deepspeed/runtime/zero/partitioned_param_coordinator.py,
 *       stage3.py, config.py) ({@link DeepSpeedCoordinator}).</li>
 * </ul>
 *
 * The enum is the name scenarios use; each constant carries its {@link ShardingFramework}
 * ({@link MegatronFsdp}, {@link Fsdp2}, {@link DeepSpeedZero3}), which the step builder and the
 * memory model ask instead of switching on the constant.
 */
public enum Zero3Impl {
    DEEPSPEED("deepspeed", new DeepSpeedZero3()), FSDP2("fsdp2", new Fsdp2()),
    MEGATRON_FSDP("megatron-fsdp", new MegatronFsdp());

    /** What scenarios get without {@code zero3Impl}: the behaviour the simulator always had. */
    public static final Zero3Impl DEFAULT = MEGATRON_FSDP;

    private final String id;
    private final ShardingFramework framework;

    Zero3Impl(String id, ShardingFramework framework) {
        this.id = id;
        this.framework = framework;
    }

    /** What the framework does its own way: the one place that differs per implementation. */
    ShardingFramework framework() {
        return framework;
    }

    /** The name scenario files use. */
    public String id() {
        return id;
    }

    /** Every implementation by its scenario name, in declaration order. */
    public static Map<String, Zero3Impl> byId() {
        Map<String, Zero3Impl> out = new LinkedHashMap<>();
        for (Zero3Impl i : values()) {
            out.put(i.id, i);
        }
        return out;
    }
}
