package org.clustersim.strategies.cost;

import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.GemmSurface;
import org.clustersim.topology.AcceleratorSpec;

/** Arithmetic precision of the matrix multiplies, which selects the accelerator peak. */
public enum Precision {
    BF16(2),
    FP16(2),
    FP8(1);

    private final int bytesPerElement;

    Precision(int bytesPerElement) {
        this.bytesPerElement = bytesPerElement;
    }

    /** Bytes of one activation element as stored between layers (fp8 activations still travel as 1 byte). */
    public int bytesPerElement() {
        return bytesPerElement;
    }

    /** Dense peak of this precision on the given chip, FLOP/s; 0 if the chip lacks it. */
    public double peak(AcceleratorSpec spec) {
        return this == FP8 ? spec.fp8Flops() : spec.bf16Flops();
    }

    /**
     * The GEMM surface this precision runs at on the given device (fp16 and bf16 share one). It
     * lives here, not on the profile, so that device profiles need not know the training numerics.
     */
    public GemmSurface gemm(DeviceProfile device) {
        GemmSurface s = this == FP8 ? device.fp8Gemm() : device.bf16Gemm();
        if (s == null) {
            throw new IllegalArgumentException(device.name() + " has no " + this + " GEMM surface");
        }
        return s;
    }
}
