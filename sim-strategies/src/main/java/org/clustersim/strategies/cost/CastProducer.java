package org.clustersim.strategies.cost;

/**
 * The kind of kernel that writes a GEMM operand, which decides whether a low-precision recipe
 * can quantise the operand inside it ({@link Fp8Recipe#fusesInto}): a layer or RMS norm, an
 * activation function (or its gradient), or anything else (a GEMM's output, a collective, the
 * attention core, a residual).
 */
public enum CastProducer {
    NORM,
    ACTIVATION,
    OTHER
}
