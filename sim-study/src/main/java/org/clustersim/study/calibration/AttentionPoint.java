package org.clustersim.study.calibration;

/**
 * One measured attention kernel rate.
 *
 * @param key     which kernel, pass, head size and mask
 * @param seqLen  sequence length
 * @param tflops  TFLOP/s by the FlashAttention benchmark convention (see {@link AttentionMeasurements})
 * @param source  the file it was read from
 * @param line    its line there
 */
public record AttentionPoint(AttentionTable.Key key, long seqLen, double tflops, String source, int line) {
}
