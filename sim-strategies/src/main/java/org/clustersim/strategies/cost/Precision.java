package org.clustersim.strategies.cost;

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
}
