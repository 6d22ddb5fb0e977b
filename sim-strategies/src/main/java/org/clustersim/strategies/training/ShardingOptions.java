package org.clustersim.strategies.training;

/**
 * How ZeRO-3 runs: the framework ({@link Zero3Impl}) and its options. Meaningless (and left at
 * {@link #defaults}) below ZeRO 3.
 *
 * @param impl                the framework
 * @param reshardAfterForward FSDP2's {@code reshard_after_forward}: free each block's gathered
 *                            weights after its forward (true, PyTorch's default) or keep them until
 *                            its backward, which then needs no gather (Llama 3's "FSDP without
 *                            resharding after forward"); the other frameworks always reshard
 * @param gradReduceBytes     bytes of a gradient element in the reduce-scatter: FSDP2's
 *                            {@code reduce_dtype}, DeepSpeed's {@code communication_data_type},
 *                            Megatron-FSDP's {@code grad_comm_dtype}; 0 for the framework's default
 *                            ({@link #reduceBytes})
 * @param deepSpeed           DeepSpeed's stage-3 knobs (used with {@link Zero3Impl#DEEPSPEED})
 */
public record ShardingOptions(Zero3Impl impl, boolean reshardAfterForward, int gradReduceBytes,
                              DeepSpeedConfig deepSpeed) {

    public ShardingOptions {
        if (impl == null || deepSpeed == null) {
            throw new IllegalArgumentException("a ZeRO-3 implementation and DeepSpeed's settings are required");
        }
        if (!reshardAfterForward && !impl.framework().keepsGatheredWeightsAfterForward()) {
            throw new IllegalArgumentException("only fsdp2 keeps gathered weights after the forward "
                    + "(reshard_after_forward=False); " + impl.id() + " always reshards");
        }
        if (gradReduceBytes != 0 && gradReduceBytes != 2 && gradReduceBytes != 4) {
            throw new IllegalArgumentException("gradients are reduced in 2 (bf16/fp16) or 4 (fp32) bytes, not "
                    + gradReduceBytes);
        }
    }

    /** Megatron-FSDP with its defaults: what {@code zero: 3} always simulated. */
    public static ShardingOptions defaults() {
        return of(Zero3Impl.DEFAULT);
    }

    /** {@code impl} with its own defaults. */
    public static ShardingOptions of(Zero3Impl impl) {
        return new ShardingOptions(impl, true, 0, DeepSpeedConfig.DEFAULTS);
    }

    /**
     * Bytes of a reduced gradient element: the given type, else the framework's default:
     * Megatron-FSDP the main gradients' type ({@code grad_comm_dtype} None means
     * {@code main_grads_dtype}); FSDP2 fp32 (torchtitan's {@code mixed_precision_reduce}
     * default, {@code reduce_dtype=float32}); DeepSpeed the training type, 2 bytes under bf16
     * and fp16 ({@code engine.communication_data_type}).
     */
    public int reduceBytes(int mainGradBytes) {
        if (gradReduceBytes != 0) {
            return gradReduceBytes;
        }
        return impl.framework().defaultReduceBytes(mainGradBytes);
    }

    /**
     * DeepSpeed's ZeRO-3 settings, in parameter elements, with the defaults of
     * {@code deepspeed/runtime/zero/config.py}.
     *
     * @param prefetchBucket       {@code stage3_prefetch_bucket_size} (5e7)
     * @param maxLive              {@code stage3_max_live_parameters} (1e9)
     * @param maxReuseDistance     {@code stage3_max_reuse_distance} (1e9)
     * @param persistenceThreshold {@code stage3_param_persistence_threshold} (1e5): smaller
     *                             parameters are never partitioned
     * @param reduceBucket         {@code reduce_bucket_size} (5e8)
     */
    public record DeepSpeedConfig(long prefetchBucket, long maxLive, long maxReuseDistance, long persistenceThreshold,
                                  long reduceBucket) {
        public static final DeepSpeedConfig DEFAULTS = new DeepSpeedConfig(50_000_000L, 1_000_000_000L,
                1_000_000_000L, 100_000L, 500_000_000L);

        public DeepSpeedConfig {
            if (prefetchBucket < 0 || maxLive < 0 || maxReuseDistance < 0 || persistenceThreshold < 0
                    || reduceBucket <= 0) {
                throw new IllegalArgumentException("DeepSpeed's sizes must not be negative (reduce bucket above 0)");
            }
        }
    }
}
