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
 *   <li>MXFP8: Blackwell's block scaling ({@code MXFP8BlockScaling}, transformer_engine/common/recipe
 *       at NVIDIA/TransformerEngine d0067d0): one E8M0 scale per 32 consecutive elements. A 1 x 32
 *       block cannot be transposed, so when a tensor feeds two GEMMs that reduce over different
 *       dimensions (an input: fprop over its columns, wgrad over its rows; an output gradient:
 *       dgrad and wgrad) Transformer Engine quantises it twice from bf16 in one kernel, a
 *       row-wise and a column-wise copy (the recipe's docstring): 2 bytes read, 1 + 1 written and
 *       a one-byte scale per 32 elements of each copy, 4 + 2/32 bytes an element. No amax pass.
 *       The activation's and its gradient's kernels write MXFP8 themselves
 *       (pytorch/csrc/extensions/activation.cpp: {@code Impl::FULLY_FUSED} for MXFP8 quantizers);
 *       the norms do not, unless cuDNN's normalisation is asked for with
 *       {@code NVTE_NORM_FWD_USE_CUDNN} (extensions/normalization.cpp: otherwise
 *       {@code Impl::UNFUSED}, the norm writes bf16 and the quantizer casts it), which is not the
 *       default: the QKV and fc1 inputs are cast by a kernel of their own.</li>
 * </ul>
 */
public enum Fp8Recipe {
    DELAYED(4, 1, true, true),
    CURRENT(6, 2, false, false),
    BLOCKWISE(4, 1, false, false),
    MXFP8(4 + 2.0 / 32, 1, false, true);

    private final double bytesPerElement;
    private final int kernelsPerCast;
    private final boolean fusesIntoNorm;
    private final boolean fusesIntoActivation;

    Fp8Recipe(double bytesPerElement, int kernelsPerCast, boolean fusesIntoNorm, boolean fusesIntoActivation) {
        this.bytesPerElement = bytesPerElement;
        this.kernelsPerCast = kernelsPerCast;
        this.fusesIntoNorm = fusesIntoNorm;
        this.fusesIntoActivation = fusesIntoActivation;
    }

    /** Bytes moved per element of an operand cast by a kernel of its own. */
    public double bytesPerElement() {
        return bytesPerElement;
    }

    /** Kernels one such cast launches. */
    public int kernelsPerCast() {
        return kernelsPerCast;
    }

    /**
     * Bytes moved per element of an operand cast by a kernel of its own, given what produced it
     * and whether the GEMMs need a transposed copy. Current scaling's amax pass is fused into the
     * norm and activation kernels that produce an operand (Transformer Engine's
     * {@code FUSED_NORM_AMAX_FP8} and {@code FUSED_ACTIVATION_AMAX_FP8} in
     * pytorch/csrc/extensions/normalization.cpp and activation.cpp, from v2.8): such an operand
     * costs one read and the writes, as under delayed scaling. A per-tensor FP8 copy needs its
     * transpose only where the tensor cores take FP8 in the TN layout alone (Hopper); on
     * Blackwell ({@code nvte_is_non_tn_fp8_gemm_supported}, pytorch/csrc/quantizer.cpp) the
     * row-wise data serves both GEMMs, one byte an element fewer.
     */
    public double bytesPerElement(CastProducer producer, boolean transposeNeeded) {
        double bytes = this == CURRENT && producer != CastProducer.OTHER ? DELAYED.bytesPerElement : bytesPerElement;
        boolean perTensor = this == DELAYED || this == CURRENT;
        return perTensor && !transposeNeeded ? bytes - 1 : bytes;
    }

    /** Kernels the cast of an operand produced by {@code producer} launches (the amax pass fused or not). */
    public int kernelsPerCast(CastProducer producer) {
        return this == CURRENT && producer != CastProducer.OTHER ? 1 : kernelsPerCast;
    }

    /** Whether an operand produced by {@code producer} is cast inside the producing kernel. */
    public boolean fusesInto(CastProducer producer) {
        return switch (producer) {
            case NORM -> fusesIntoNorm;
            case ACTIVATION -> fusesIntoActivation;
            case OTHER -> false;
        };
    }

    /**
     * Bytes an element of a GEMM input's quantised copy takes where Transformer Engine keeps it for
     * the weight gradient: the fp8 byte, plus the block scales (blockwise: 4 bytes per 128;
     * MXFP8: one E8M0 byte per 32).
     */
    public double savedBytesPerElement() {
        return switch (this) {
            case BLOCKWISE -> 1 + 4.0 / 128;
            case MXFP8 -> 1 + 1.0 / 32;
            default -> 1;
        };
    }
}
