package org.clustersim.study.calibration;

import java.util.List;
import java.util.Optional;

/**
 * The GEMM precisions a device profile holds, by the names used in profiles and measurement
 * files, with the bytes per element the memory term of the GEMM model counts.
 */
public enum GemmPrecision {
    /** bfloat16 inputs and output. */
    BF16("bf16", 2),
    /** 8-bit floating point (E4M3/E5M2), counted at one byte per element throughout. */
    FP8("fp8", 1);

    private final String id;
    private final int bytesPerElement;

    GemmPrecision(String id, int bytesPerElement) {
        this.id = id;
        this.bytesPerElement = bytesPerElement;
    }

    /** The name in profiles and CSV files. */
    public String id() {
        return id;
    }

    /** e in the model's bytes = e (mk + kn + mn). */
    public int bytesPerElement() {
        return bytesPerElement;
    }

    /** Every name, in declaration order. */
    public static List<String> ids() {
        return List.of(BF16.id, FP8.id);
    }

    /** The precision named {@code id} (lower case). */
    public static Optional<GemmPrecision> byId(String id) {
        for (GemmPrecision p : values()) {
            if (p.id.equals(id)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
