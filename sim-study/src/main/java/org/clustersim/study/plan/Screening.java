package org.clustersim.study.plan;

import java.io.Serializable;

/**
 * What a plan learns about a layout without simulating it: whether its step can be formed (the
 * layout rules; the scenario reader for the layouts it then simulates), its predicted peak memory
 * against HBM ({@link PeakMemory}), and its estimated step
 * ({@link org.clustersim.strategies.training.StepWalk}).
 *
 * @param index      the layout's index
 * @param verdict    valid, invalid or out of memory
 * @param reason     for an invalid or out-of-memory candidate, why (the reader's field and message, or the
 *                   memory breakdown); else empty
 * @param reasonKey  the reason's kind for counting (a field path, "out of memory"); else empty
 * @param memory     predicted peak memory of the fullest GPU (null when invalid)
 * @param hbmBytes   the GPU's memory
 * @param estimateNs the estimated step time (0 unless valid)
 */
public record Screening(int index, Verdict verdict, String reason, String reasonKey, PeakMemory.Peak memory,
                        long hbmBytes, long estimateNs) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The outcome of screening. */
    public enum Verdict {
        VALID, INVALID, OUT_OF_MEMORY
    }
}
