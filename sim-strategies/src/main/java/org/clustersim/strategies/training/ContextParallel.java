package org.clustersim.strategies.training;

/**
 * How context parallelism shares keys and values between the c GPUs that split a sequence.
 * ALL_GATHER: each layer all-gathers the whole sequence's keys and values before attention and
 * reduce-scatters their gradients after its backward (the variant the Llama 3 paper describes,
 * section 3.3.2: simple, exposed, and good for GQA's small K/V). RING: ring attention (Liu et
 * al., "Ring Attention with Blockwise Transformers", 2023; Megatron-LM's CP): the attention core
 * runs in c steps, each on the K/V block in hand while the next block arrives from the ring
 * neighbour, so the transfer overlaps the compute; the backward circulates the K/V gradients
 * with them and returns them to their owner at the end.
 */
public enum ContextParallel {
    ALL_GATHER, RING
}
