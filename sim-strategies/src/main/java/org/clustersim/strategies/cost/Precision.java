package org.clustersim.strategies.cost;

import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.GemmSurface;
import org.clustersim.topology.AcceleratorSpec;

/**
 * Arithmetic precision of the matrix multiplies, which selects the accelerator peak. INT8 is
 * MaxText's AQT {@code quantization: int8} on TPU MXUs (maxtext {@code layers/quantizations.py},
 * {@code _get_int8_quant_config}): the decoder layers' weight matmuls run in int8 forward and
 * in both backward GEMMs, with int32 accumulation; the logits, the attention core, norms and
 * the optimizer stay in bf16/fp32, and the tensors between layers stay bf16.
 *
 * <p>NVFP4 is NVIDIA's 4-bit training recipe (arXiv 2509.25149, "Pretraining Large Language
 * Models with NVFP4"; Transformer Engine's {@code NVFP4BlockScaling}, Megatron-core's
 * {@code --fp4-format e2m1 --fp4-recipe nvfp4}): E2M1 values with an E4M3 scale per 16
 * consecutive elements and an FP32 scale per tensor; the linear layers' three GEMMs (fprop,
 * dgrad, wgrad) run at the FP4 rate, the attention core, the logits and the router in bf16, as
 * under FP8. Its casts are {@link KernelCosts#cast}'s.
 */
public enum Precision {
    BF16(2),
    FP16(2),
    FP8(1),
    INT8(2),
    NVFP4(2);

    private final int bytesPerElement;

    Precision(int bytesPerElement) {
        this.bytesPerElement = bytesPerElement;
    }

    /**
     * Bytes of one activation element as stored between layers (fp8 activations still travel as
     * 1 byte; AQT quantises inside each matmul, so int8 training keeps bf16 between layers, and
     * Transformer Engine's NVFP4 layers take and give bf16 tensors).
     */
    public int bytesPerElement() {
        return bytesPerElement;
    }

    /** Dense peak of this precision on the given chip, FLOP/s; 0 if the chip lacks it. */
    public double peak(AcceleratorSpec spec) {
        return switch (this) {
            case FP8 -> spec.fp8Flops();
            case INT8 -> spec.int8Flops();
            case NVFP4 -> spec.fp4Flops();
            default -> spec.bf16Flops();
        };
    }

    /** Whether the GEMMs quantise their operands (fp8, int8 or nvfp4): a cast pass per operand. */
    public boolean quantised() {
        return this == FP8 || this == INT8 || this == NVFP4;
    }

    /**
     * The GEMM surface this precision runs at on the given device (fp16 and bf16 share one). It
     * lives here, not on the profile, so that device profiles need not know the training numerics.
     */
    public GemmSurface gemm(DeviceProfile device) {
        GemmSurface s = switch (this) {
            case FP8 -> device.fp8Gemm();
            case INT8 -> device.int8Gemm();
            case NVFP4 -> device.nvfp4Gemm();
            default -> device.bf16Gemm();
        };
        if (s == null) {
            throw new IllegalArgumentException(device.name() + " has no " + this + " GEMM surface");
        }
        return s;
    }
}
