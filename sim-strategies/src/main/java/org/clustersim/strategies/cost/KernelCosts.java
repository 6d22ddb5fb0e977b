package org.clustersim.strategies.cost;

import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.AttentionPass;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.GemmSurface;
import org.clustersim.strategies.device.Op;

/**
 * The step's numerics on one device, and the stream time of each kind of kernel it runs there,
 * from the device profile:
 * GEMMs at the training precision's surface (FP8 runs only the GEMMs in FP8), attention cores
 * from the implementation's tables, memory-bound operations as bytes over the achieved HBM
 * bandwidth. Every time includes the launch cost of its kernels ({@link
 * org.clustersim.strategies.device.Launch}). GEMMs and attention cores run at the clock the
 * profile's {@code power} section says they sustain under the board's power limit ({@link
 * org.clustersim.strategies.device.PowerLimit}: their compute terms stretched, their memory
 * terms not); memory-bound kernels at the measured bandwidth whatever the power limit.
 *
 * @param device    the device profile
 * @param precision GEMM precision
 * @param recipe    FP8 scaling recipe (ignored unless precision is FP8)
 * @param attention attention-core implementation
 * @param gradAccumulationFusion weight-gradient GEMMs accumulate into the main gradient in
 *                  their epilogue (Megatron-core's default), reading and writing it (2 x 4 bytes
 *                  per weight in fp32) where the measured GEMMs wrote one result element, costed
 *                  with the GEMM surface's own memory term; otherwise each writes its 2-byte
 *                  gradient and a separate kernel adds it to the main gradient, reading 2 + g and
 *                  writing g bytes per weight per microbatch (Megatron-LM before late 2021)
 * @param fp8ParamGather with FP8 or NVFP4, ZeRO's weight all-gathers move the weights as the
 *                  recipe keeps them (Megatron-core's {@code fp8_param_gather} /
 *                  {@code fp4_param_gather}) instead of bf16: see {@link #weightGatherBytes}
 * @param mainGradBytes g, bytes of a main-gradient element: 4 (fp32; Megatron-LM forces it for
 *                  bf16 training) or 2 (bf16 or fp16: Megatron-core's {@code grad_reduce_in_fp32}
 *                  off, Megatron-LM's fp16 default). Gradients are accumulated and reduced over
 *                  data-parallel ranks in this type
 * @param adamMomentBytes bytes of each of Adam's two moments: 4 (fp32, Megatron-core's default
 *                  {@code exp_avg_dtype} / {@code exp_avg_sq_dtype}) or 2 (bf16, under
 *                  {@code --use-precision-aware-optimizer}, as Megatron-Bridge's DeepSeek-V3
 *                  recipe sets them; {@code megatron/core/optimizer/optimizer_config.py}). The
 *                  fp32 master weights stay 4 bytes
 */
public record KernelCosts(DeviceProfile device, Precision precision, Fp8Recipe recipe, AttentionImpl attention,
                          boolean gradAccumulationFusion, boolean fp8ParamGather, int mainGradBytes,
                          int adamMomentBytes) {

    /** With fp32 Adam moments (Megatron-core's default). */
    public KernelCosts(DeviceProfile device, Precision precision, Fp8Recipe recipe, AttentionImpl attention,
                       boolean gradAccumulationFusion, boolean fp8ParamGather, int mainGradBytes) {
        this(device, precision, recipe, attention, gradAccumulationFusion, fp8ParamGather, mainGradBytes, 4);
    }

    public KernelCosts {
        if (mainGradBytes != 2 && mainGradBytes != 4) {
            throw new IllegalArgumentException("main gradients are 2 or 4 bytes, not " + mainGradBytes);
        }
        if (adamMomentBytes != 2 && adamMomentBytes != 4) {
            throw new IllegalArgumentException("Adam's moments are 2 or 4 bytes, not " + adamMomentBytes);
        }
        precision.gemm(device);
        if (attention != AttentionImpl.STANDARD && !device.attention().covers(attention)) {
            throw new IllegalArgumentException(device.name() + "'s profile has no " + attention.key()
                    + " attention table");
        }
    }

    /** On a device's default attention, delayed FP8 scaling, fused accumulation into fp32 main gradients. */
    public static KernelCosts of(DeviceProfile device, Precision precision) {
        return new KernelCosts(device, precision, Fp8Recipe.DELAYED, device.defaultAttention(), true, false, 4);
    }

    /**
     * The same numerics with every kernel replayed from a CUDA graph ({@link CudaGraphs}): the
     * device profile's launch cost without the host floor ({@link
     * org.clustersim.strategies.device.Launch#graphReplay}).
     */
    public KernelCosts graphed() {
        return new KernelCosts(device.withLaunch(device.launch().graphReplay()), precision, recipe, attention,
                gradAccumulationFusion, fp8ParamGather, mainGradBytes, adamMomentBytes);
    }

    /**
     * Bytes of optimizer state per parameter the GPU holds unsharded: the fp32 master weight and
     * Adam's two moments, 4 + 2 m (12 with fp32 moments, 8 with bf16).
     */
    public int optimizerStateBytes() {
        return 4 + 2 * adamMomentBytes;
    }

    /**
     * Bytes the fused Adam step reads and writes per parameter: the fp32 master weight, a 4-byte
     * gradient and the two moments in; master weight and moments out, and the bf16 weight (30
     * with fp32 moments, 22 with bf16).
     */
    public double adamBytesPerParam() {
        return 4 + 4 + 2 * adamMomentBytes + 4 + 2 * adamMomentBytes + 2;
    }

    /**
     * Bytes per parameter that fp16 training's loss scaling adds to the optimizer step, 0 in bf16
     * or FP8 (no grad scaler). Megatron-LM's {@code Float16OptimizerWithFloat16Params.step}
     * (megatron/optimizer/optimizer.py at NVIDIA/Megatron-LM commit aed2f75, April 2021, as in
     * Megatron-core today) first copies each main gradient into the fp32 gradient of the master
     * weight ({@code .float()}: reads g, writes 4; nothing when the main gradient is already
     * fp32, where {@code .float()} returns the same tensor), then unscales it and checks it for
     * inf/NaN in one pass ({@code torch._amp_foreach_non_finite_check_and_unscale_}: reads 4,
     * writes 4). Both are multi-tensor kernels over every local parameter, like Adam's.
     */
    public double lossScalingBytesPerParam() {
        if (precision != Precision.FP16) {
            return 0;
        }
        double copy = mainGradBytes == 4 ? 0 : mainGradBytes + 4;
        return copy + 4 + 4;
    }

    /** Whether GEMMs run in FP8. */
    public boolean fp8() {
        return precision == Precision.FP8;
    }

    /** Whether GEMMs run in NVFP4. */
    public boolean nvfp4() {
        return precision == Precision.NVFP4;
    }

    /**
     * The surface the training precision's GEMMs run at: under the MXFP8 recipe the profile's
     * {@code gemm.mxfp8} surface where it has one (block-scaled FP8 runs its own kernels), else
     * its fp8 surface; otherwise the precision's ({@link Precision#gemm}).
     */
    public GemmSurface surface() {
        if (precision == Precision.FP8 && recipe == Fp8Recipe.MXFP8 && device.mxfp8Gemm() != null) {
            return device.mxfp8Gemm();
        }
        return precision.gemm(device);
    }

    /**
     * These costs with every GEMM in bf16 and no casts: the layers a low-precision recipe keeps
     * in bf16 (Megatron-core's {@code first_last_layers_bf16}).
     */
    public KernelCosts inBf16() {
        return new KernelCosts(device, Precision.BF16, recipe, attention, gradAccumulationFusion, false, mainGradBytes,
                adamMomentBytes);
    }

    /**
     * Bytes an element of a GEMM input's quantised copy takes where Transformer Engine keeps it
     * for the weight gradient (see {@link Fp8Recipe#savedBytesPerElement}); under NVFP4 the
     * column-wise copy, half a byte and an E4M3 scale byte per 16 elements; 2 (bf16) otherwise.
     */
    public double savedOperandBytes() {
        return switch (precision) {
            case FP8 -> recipe.savedBytesPerElement();
            case NVFP4 -> NVFP4_SAVED_BYTES;
            default -> 2;
        };
    }

    /** What the trace calls the cast of a GEMM operand at this precision and recipe. */
    public String castName() {
        return switch (precision) {
            case INT8 -> "int8 quantise";
            case NVFP4 -> "nvfp4 cast";
            default -> recipe == Fp8Recipe.MXFP8 ? "mxfp8 cast" : "fp8 cast";
        };
    }

    /**
     * Bytes a weight takes in a ZeRO all-gather. bf16 (2) unless {@code fp8ParamGather}; then,
     * with per-tensor or blockwise FP8, the FP8 copy, 1 byte (the parameter buffer is uint8:
     * megatron/core/distributed/param_and_grad_buffer.py, {@code group_params_for_buffers}, at
     * NVIDIA/Megatron-LM d98e8a6). MXFP8 weights cannot be sharded flat; Megatron-core gathers
     * them through the gradient buffer ({@code reuse_grad_buf_for_mxfp8_param_ag}, which
     * Megatron-Bridge's {@code bf16_with_mxfp8_mixed} sets with {@code fp8_param_gather}): the
     * optimizer copies its fp32 master shards into that buffer
     * ({@code DistributedOptimizer._copy_main_params_to_param_buffer}), the all-gather moves the
     * main-gradient type (g bytes), and each weight is cast to MXFP8 after it
     * ({@code _post_param_sync}; that cast is not costed here). NVFP4 weights are gathered as
     * their packed row-wise bytes, half a byte a weight (Megatron-core's {@code fp4_param_gather},
     * "remap packed rowwise bytes").
     */
    public double weightGatherBytes() {
        if (!fp8ParamGather) {
            return 2;
        }
        return switch (precision) {
            case FP8 -> recipe == Fp8Recipe.MXFP8 ? mainGradBytes : 1;
            case NVFP4 -> 0.5;
            default -> 2;
        };
    }

    /** Whether GEMMs quantise their operands (FP8, NVFP4 or AQT int8). */
    public boolean quantised() {
        return precision.quantised();
    }

    /** A GEMM (m x k) by (k x n) at the training precision, one kernel. */
    public double gemm(double m, double n, double k) {
        return gemm(m, n, k, false);
    }

    /** A GEMM, kept in bf16 whatever the training precision when {@code bf16} (logits, router). */
    public double gemm(double m, double n, double k, boolean bf16) {
        return launch(sustained(bf16 ? device.bf16Gemm() : surface()).ns(m, n, k), 1);
    }

    /** A grouped GEMM of {@code groups} products (m x k) by (k x n) at the training precision. */
    public double grouped(int groups, double m, double n, double k) {
        return launch(sustained(surface()).groupedNs(groups, m, n, k), 1);
    }

    /** A GEMM surface at the clock compute-bound kernels sustain under the device's power limit. */
    private GemmSurface sustained(GemmSurface s) {
        return s.atClock(device.power().sustainedComputeFraction());
    }

    /** Bytes of the half-precision weight gradient a GEMM writes when accumulation is not fused. */
    static final double WGRAD_BYTES = 2;

    /**
     * Adding one microbatch's weight gradient of {@code weights} weights to the main gradient:
     * fused, the epilogue reads and writes the main gradient (2g bytes a weight) instead of
     * writing one result element; unfused, a kernel reads the gradient and the main gradient
     * and writes the sum (2 + 2g).
     */
    public double accumulate(double weights) {
        return accumulate(weights, false);
    }

    /**
     * The same for a GEMM kept in bf16 whatever the training precision when {@code bf16} (logits,
     * router): its epilogue replaces a bf16 result element, not one of the training precision.
     */
    public double accumulate(double weights, boolean bf16) {
        if (gradAccumulationFusion) {
            GemmSurface s = bf16 ? device.bf16Gemm() : surface();
            double extra = 2.0 * mainGradBytes - s.bytesPerElement();
            return s.memoryFactor() * extra * weights / s.hbmBytesPerS() * 1e9;
        }
        return memory(weights * (WGRAD_BYTES + 2.0 * mainGradBytes), 1);
    }

    /** A memory-bound operation moving {@code bytes} through HBM in {@code kernels} kernels. */
    public double memory(double bytes, int kernels) {
        return launch(bytes / device.streamBytesPerS() * 1e9, kernels);
    }

    /**
     * What one device-to-host synchronisation leaves the GPU idle (the profile's {@code
     * host.syncUs}): the MoE dispatchers' split sizes read back by the host each layer.
     */
    public double hostSync() {
        return device.hostSyncNs();
    }

    /** The forward kernels of an operation, moving {@code bytes}. */
    public double forward(Op op, double bytes) {
        return memory(bytes, device.kernels().forward(op));
    }

    /** The backward kernels of an operation, moving {@code bytes}. */
    public double backward(Op op, double bytes) {
        return memory(bytes, device.kernels().backward(op));
    }

    /**
     * FP8, int8 or NVFP4 quantisation of one GEMM operand of {@code elements} elements by a kernel
     * of its own (0 when training in bf16, or when the recipe fuses the cast into the kernel that
     * produced the operand, {@code producer}). AQT int8 scales each operand from its own absolute
     * maximum per channel, computed just in time (maxtext {@code _get_int8_quant_config}, AQT's
     * dynamic range calibration): costed as {@link Fp8Recipe#CURRENT}, an amax pass then a cast,
     * never fused into the producer (uncertain: XLA may fuse the amax reduction into the
     * producing fusion, which would save one read). NVFP4: the cast kernel alone, without its
     * amax pass ({@link #hadamardAmax}): Transformer Engine's fused
     * {@code nvte_quantize_with_hadamard_transform} (pytorch/csrc/quantizer.cpp,
     * {@code NVFP4Quantizer::quantize_impl}) reads the bf16 tensor once and writes the row-wise
     * copy and, after a 16 x 16 random Hadamard transform, the column-wise copy for the weight
     * gradient, each half a byte an element and an E4M3 scale byte per 16: 2 + 2 (0.5 + 1/16)
     * bytes an element. Its inputs and gradients always take that path: their quantizers apply
     * the transform with the post-transform amax, which the norm and activation kernels cannot
     * produce (extensions/normalization.cpp and activation.cpp: {@code Impl::UNFUSED} when
     * {@code with_rht && with_post_rht_amax}), so nothing fuses.
     */
    public double cast(double elements, CastProducer producer) {
        if (precision == Precision.NVFP4) {
            return memory(elements * NVFP4_CAST_BYTES, device.kernels().forward(Op.FP8_CAST));
        }
        Fp8Recipe r = precision == Precision.INT8 ? Fp8Recipe.CURRENT : recipe;
        if (!quantised() || r.fusesInto(producer)) {
            return 0;
        }
        boolean transpose = precision == Precision.INT8 || !device.anyLayoutFp8Gemm();
        CastProducer from = precision == Precision.INT8 ? CastProducer.OTHER : producer;
        return memory(elements * r.bytesPerElement(from, transpose),
                r.kernelsPerCast(from) * device.kernels().forward(Op.FP8_CAST));
    }

    /**
     * NVFP4's amax pass before each operand's cast, 0 at any other precision: one kernel
     * ({@code nvte_hadamard_transform_amax}) reads the bf16 tensor once and gives both the
     * tensor's amax (for the row-wise copy's FP32 scale) and the amax after the random Hadamard
     * transform (for the column-wise copy's): 2 bytes an element.
     */
    public double hadamardAmax(double elements) {
        if (precision != Precision.NVFP4) {
            return 0;
        }
        return memory(elements * NVFP4_AMAX_BYTES, device.kernels().forward(Op.FP8_CAST));
    }

    /** Bytes an element NVFP4's amax pass reads: the bf16 tensor once. */
    static final double NVFP4_AMAX_BYTES = 2;
    /** Bytes an element of one NVFP4 quantised copy: the 4-bit value and an E4M3 scale per 16. */
    static final double NVFP4_SAVED_BYTES = 0.5 + 1.0 / 16;
    /** Bytes an element NVFP4's fused cast moves: bf16 read, row-wise and column-wise copies written. */
    static final double NVFP4_CAST_BYTES = 2 + 2 * NVFP4_SAVED_BYTES;

    /**
     * One pass of the fused attention core.
     *
     * @param flops   the pass's FLOPs in the FlashAttention convention (causal halved)
     * @param seqLen  the sequence length to read the rate at
     */
    public double attention(AttentionPass pass, double flops, int headDim, boolean causal, double seqLen) {
        double rate = device.attention().rate(attention, pass, headDim, causal, seqLen)
                * device.power().sustainedComputeFraction();
        int kernels = pass == AttentionPass.FORWARD ? device.kernels().forward(Op.ATTENTION)
                : device.kernels().backward(Op.ATTENTION);
        return launch(flops / rate * 1e9, kernels);
    }

    private double launch(double ns, int kernels) {
        return device.launch().ns(ns, kernels);
    }
}
