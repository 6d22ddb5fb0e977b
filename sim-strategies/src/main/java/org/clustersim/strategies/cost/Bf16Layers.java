package org.clustersim.strategies.cost;

/**
 * The transformer layers a low-precision recipe (FP8 or NVFP4) keeps in bf16: the first
 * {@code first} and the last {@code last} of the model's layers. Megatron-core's
 * {@code first_last_layers_bf16} with {@code num_layers_at_start_in_bf16} and
 * {@code num_layers_at_end_in_bf16} (megatron/core/fp4_utils.py and fp8_utils.py at
 * NVIDIA/Megatron-LM d98e8a6: layer {@code l} of {@code L}, counted from 0, is kept in bf16 when
 * {@code l < first} or {@code l >= L - last}); off by default there and in Megatron-Bridge's
 * {@code bf16_with_nvfp4_mixed}. NVIDIA's NVFP4 recipe (arXiv 2509.25149) keeps a small share of
 * numerically sensitive linear layers in higher precision, mostly at the end of the network (our
 * reading of its 12B run, the first two and the last eight blocks, is not checked against the
 * paper's text here); Megatron-Bridge's GPT-OSS 20B NVFP4 perf recipe keeps the last 4
 * (perf_recipes/gpt_oss/common.py) and its Nemotron 3 Super NVFP4 recipe the last 14.
 * Inside such a layer every GEMM runs in bf16 with no casts; the rest of the step (attention,
 * logits, router) is unchanged.
 *
 * @param first layers at the start kept in bf16
 * @param last  layers at the end kept in bf16
 */
public record Bf16Layers(int first, int last) {
    /** No layer kept in bf16. */
    public static final Bf16Layers NONE = new Bf16Layers(0, 0);

    public Bf16Layers {
        if (first < 0 || last < 0) {
            throw new IllegalArgumentException("bf16 layer counts must be >= 0, not " + first + " and " + last);
        }
    }

    /** Whether layer {@code layer} (from 0) of a model of {@code layers} layers stays in bf16. */
    public boolean contains(int layer, int layers) {
        return layer < first || layer >= layers - last;
    }

    /** Whether any layer stays in bf16. */
    public boolean any() {
        return first > 0 || last > 0;
    }
}
