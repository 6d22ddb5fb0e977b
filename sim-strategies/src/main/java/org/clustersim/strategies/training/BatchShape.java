package org.clustersim.strategies.training;

/**
 * What one pipeline of a step processes.
 *
 * @param microbatches microbatches per replica m
 * @param microBatch   sequences per microbatch b
 * @param seqLen       tokens per sequence s
 */
public record BatchShape(int microbatches, int microBatch, int seqLen) {
}
