package org.clustersim.strategies.cost;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A submodule Megatron-core recomputes under {@code --recompute-granularity selective
 * --recompute-modules ...} ({@code recompute_modules} in
 * {@code megatron/core/transformer/transformer_config.py}, applied in {@code transformer_layer.py},
 * {@code multi_latent_attention.py} and {@code moe/experts.py}): its activations are not kept
 * for the backward, which replays its forward first. The names are Megatron-core's.
 */
public enum RecomputeModule {
    /** The attention core (Megatron-core's default module): the score matrix is not kept. */
    CORE_ATTN("core_attn"),
    /**
     * Latent attention's up-projections and the rotary embedding applied to them
     * ({@code qkv_up_proj_and_rope_apply} under {@code CheckpointWithoutOutput}): the queries,
     * keys and values the core reads are discarded and rebuilt from the latents.
     */
    MLA_UP_PROJ("mla_up_proj"),
    /** A dense layer's MLP (MoE layers are not touched by it): only its input is kept. */
    MLP("mlp"),
    /** The routed experts' activation function (output-discarding): its output is rebuilt from fc1's. */
    MOE_ACT("moe_act"),
    /** The shared experts' MLP: their intermediates are not kept. */
    SHARED_EXPERTS("shared_experts"),
    /** The input and pre-MLP layer norms (output-discarding): their outputs are rebuilt. */
    LAYERNORM("layernorm"),
    /** The whole MoE layer, all-to-alls included (normal checkpointing). Not modelled yet. */
    MOE("moe");

    private final String id;

    RecomputeModule(String id) {
        this.id = id;
    }

    /** Megatron-core's name. */
    public String id() {
        return id;
    }

    /** Whether the simulator models recomputing this module. */
    public boolean supported() {
        return this != MOE;
    }

    public static Optional<RecomputeModule> byId(String id) {
        String key = id.toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(m -> m.id.equals(key)).findFirst();
    }

    /** All names, comma-separated. */
    public static String names() {
        return Arrays.stream(values()).map(RecomputeModule::id).collect(Collectors.joining(", "));
    }
}
