package org.clustersim.strategies.device;

/**
 * Host time that ZeRO-3 frameworks spend in their module hooks and that the GPU waits for. Only
 * DeepSpeed's is charged: its {@code fetch_sub_module} and {@code release_sub_module} run in
 * Python for every submodule, forward and backward, and its fetch synchronises with the gather
 * stream's events ({@code __ongoing_fetch_events}), so the host stays in step with the GPU at every
 * submodule (deepspeedai/DeepSpeed, deepspeed/runtime/zero/partitioned_param_coordinator.py).
 * FSDP2's and Megatron-FSDP's hooks run once per block and wait on the GPU only through stream
 * events, so the host runs ahead and their cost hides behind the kernels; what they cost the GPU
 * is their copy kernels, costed from the memory bandwidth and launch costs.
 *
 * @param deepspeedSubmoduleNs DeepSpeed's pre- plus post-hook per submodule per pass, ns
 */
public record ShardingHooks(double deepspeedSubmoduleNs) {
    /** No hook cost (a profile without a {@code sharding} section). */
    public static final ShardingHooks NONE = new ShardingHooks(0);

    public ShardingHooks {
        if (!(deepspeedSubmoduleNs >= 0)) {
            throw new IllegalArgumentException("hook time must not be negative");
        }
    }
}
