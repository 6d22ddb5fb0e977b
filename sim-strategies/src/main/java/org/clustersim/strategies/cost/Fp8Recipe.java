package org.clustersim.strategies.cost;

/**
 * How FP8 training scales its tensors (Transformer Engine's recipes), which decides what the
 * quantisation of each GEMM operand costs in memory traffic. Only GEMMs run in FP8; every
 * operand they take is cast (and transposed for the other backward GEMM) by a memory-bound
 * kernel reading bf16 and writing two fp8 copies.
 * <ul>
 *   <li>DELAYED: the scale comes from the amax history, so the cast can be fused into the
 *       kernel producing the operand where Transformer Engine fuses it (the layer norm before
 *       the QKV and first MLP GEMMs, the activation before the second, the activation's
 *       gradient before the first MLP GEMM's backward): only the other operands are cast by a
 *       kernel of their own, 4 bytes moved per element.</li>
 *   <li>CURRENT: per-tensor scaling from the tensor's own amax, computed just in time: no
 *       operand's cast can be fused, and an amax pass reads the tensor once more before the
 *       cast, 6 bytes per element and two kernels at every operand.</li>
 *   <li>BLOCKWISE: a scale per 1 x 128 (activations) or 128 x 128 (weights) block (DeepSeek-V3):
 *       no global amax pass, but no fusion either: one 4-byte-per-element cast at every
 *       operand.</li>
 * </ul>
 */
public enum Fp8Recipe {
    DELAYED(4, 1, true),
    CURRENT(6, 2, false),
    BLOCKWISE(4, 1, false);

    private final double bytesPerElement;
    private final int kernelsPerCast;
    private final boolean fusesIntoProducer;

    Fp8Recipe(double bytesPerElement, int kernelsPerCast, boolean fusesIntoProducer) {
        this.bytesPerElement = bytesPerElement;
        this.kernelsPerCast = kernelsPerCast;
        this.fusesIntoProducer = fusesIntoProducer;
    }

    /** Bytes moved per element of an operand cast by a kernel of its own. */
    public double bytesPerElement() {
        return bytesPerElement;
    }

    /** Kernels one such cast launches. */
    public int kernelsPerCast() {
        return kernelsPerCast;
    }

    /** Whether an operand produced by a norm or activation kernel is cast inside that kernel. */
    public boolean fusesIntoProducer() {
        return fusesIntoProducer;
    }
}
