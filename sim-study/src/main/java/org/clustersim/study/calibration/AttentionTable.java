package org.clustersim.study.calibration;

import java.util.Comparator;
import java.util.List;

/**
 * The measured rate of one attention kernel by sequence length: what the profile's
 * {@code attention.tables} holds, one entry per (impl, pass, headDim, causal), points sorted by
 * sequence length. The cost model interpolates between the points.
 *
 * @param key    the kernel, pass, head size and mask
 * @param points the measurements, sorted by sequence length
 */
public record AttentionTable(Key key, List<AttentionPoint> points) {
    /** Kernel implementations a profile names. */
    public static final List<String> IMPLS = List.of("standard", "flash2", "flash3", "cudnn");
    /** Passes. */
    public static final List<String> PASSES = List.of("forward", "backward");

    /**
     * What one table is about.
     *
     * @param impl    standard, flash2, flash3 or cudnn
     * @param pass    forward or backward
     * @param headDim head dimension d
     * @param causal  whether the mask is causal
     */
    public record Key(String impl, String pass, long headDim, boolean causal) {
        /** The profile's order: impl, pass (by name), headDim, non-causal before causal. */
        public static final Comparator<Key> ORDER = Comparator.comparing(Key::impl).thenComparing(Key::pass)
                .thenComparingLong(Key::headDim).thenComparing(Key::causal);

        /** "flash2 forward d64 causal" for reports and messages. */
        public String describe() {
            return impl + " " + pass + " d" + headDim + (causal ? " causal" : " non-causal");
        }
    }
}
