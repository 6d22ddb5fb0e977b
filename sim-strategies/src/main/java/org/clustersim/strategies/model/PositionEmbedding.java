package org.clustersim.strategies.model;

/**
 * How a model tells attention where a token is. Rotary embeddings (Su et al., "RoFormer",
 * arXiv 2104.09864; Llama, Mixtral, DeepSeek, GPT-OSS) rotate every query and key in each
 * layer, an element-wise kernel of its own per layer; learned absolute embeddings (GPT-2 and
 * GPT-3, the Megatron SC'21 GPT family) add a position vector to the token embedding once, on
 * the first stage, and cost nothing per layer.
 */
public enum PositionEmbedding {
    /** Rotary: queries and keys rotated in every layer. */
    ROTARY,
    /** Learned absolute: added to the embedding once. */
    LEARNED
}
