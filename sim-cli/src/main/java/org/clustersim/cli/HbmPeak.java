package org.clustersim.cli;

import java.util.Locale;

import org.clustersim.cli.output.RunSummary;
import org.clustersim.core.input.InputException;
import org.clustersim.study.plan.PeakMemory;

/**
 * The fullest GPU's memory at its peak and what fills it, as {@code run} measures it on the
 * simulated timeline or {@code validate} predicts it before simulating ({@link PeakMemory}):
 * one wording for both, so that a layout over HBM reads the same wherever it is caught.
 *
 * @param gpu             the GPU's name
 * @param peakBytes       its peak
 * @param weightBytes     weights
 * @param gradientBytes   gradients
 * @param optimizerBytes  optimizer state
 * @param workspaceBytes  framework reserve and logits buffers
 * @param activationBytes activations at the peak
 */
record HbmPeak(String gpu, long peakBytes, long weightBytes, long gradientBytes, long optimizerBytes,
               long workspaceBytes, long activationBytes) {

    /** A simulated GPU's memory. */
    static HbmPeak measured(String gpu, RunSummary.Memory m) {
        return new HbmPeak(gpu, m.peakBytes(), m.weightBytes(), m.gradientBytes(), m.optimizerBytes(),
                m.workspaceBytes(), m.activationBytes());
    }

    /** The memory model's prediction for the fullest pipeline rank, on GPU {@code gpu}. */
    static HbmPeak predicted(String gpu, PeakMemory.Peak m) {
        return new HbmPeak(gpu, m.peakBytes(), m.weightBytes(), m.gradientBytes(), m.optimizerBytes(),
                m.workspaceBytes(), m.activationBytes());
    }

    /** Whether the peak exceeds {@code hbmBytes}. */
    boolean over(long hbmBytes) {
        return peakBytes > hbmBytes;
    }

    /** "peak 295.8 GB against 80 GB of HBM (weights 17.6, ..., activations 134.9 GB)". */
    String against(long hbmBytes) {
        return String.format(Locale.ROOT, "peak %.1f GB against %.0f GB of HBM (weights %.1f, gradients %.1f, "
                + "optimizer state %.1f, workspace %.1f, activations %.1f GB)", peakBytes / 1e9, hbmBytes / 1e9,
                weightBytes / 1e9, gradientBytes / 1e9, optimizerBytes / 1e9, workspaceBytes / 1e9,
                activationBytes / 1e9);
    }

    /**
     * The error (exit 2) for a layout that does not fit: {@code scenario} runs out of memory on
     * the GPU, the breakdown, {@code how} it was found (empty, or a clause starting with a space)
     * and what to change.
     */
    InputException outOfMemory(String scenario, long hbmBytes, String how, String orElse) {
        return new InputException(scenario + " runs out of memory on " + gpu + ": " + against(hbmBytes) + how
                + "; shard more (tp, pp, ep, zero), recompute, or " + orElse);
    }
}
