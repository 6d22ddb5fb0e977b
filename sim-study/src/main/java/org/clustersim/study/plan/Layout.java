package org.clustersim.study.plan;

import java.io.Serializable;
import java.util.Locale;

/**
 * One point of a plan's design space: the parallel layout, microbatch, recomputation, ZeRO stage
 * and pipeline schedule of a training step. {@code dp} follows from the cluster's GPUs.
 *
 * @param tp        tensor-parallel size
 * @param pp        pipeline-parallel size
 * @param cp        context-parallel size
 * @param ep        expert-parallel size
 * @param vp        model chunks per rank (the interleaved schedule's v; 2 for the V shapes; else 1)
 * @param dp        data-parallel size: GPUs / (tp x pp x cp)
 * @param mb        microbatch size in sequences
 * @param recompute none, selective or full
 * @param zero      ZeRO stage
 * @param schedule  pipeline schedule id (1f1b, interleaved, ...)
 */
public record Layout(int tp, int pp, int cp, int ep, int vp, int dp, int mb, String recompute, int zero,
                     String schedule) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** A short label, such as {@code tp8 pp4 cp1 ep1 v1 dp32 mb1 selective zero1 1f1b}. */
    public String label() {
        return String.format(Locale.ROOT, "tp%d pp%d cp%d ep%d v%d dp%d mb%d %s zero%d %s", tp, pp, cp, ep, vp, dp, mb,
                recompute, zero, schedule);
    }

    /** The label as a file-name part: {@code tp8-pp4-cp1-ep1-v1-dp32-mb1-selective-zero1-1f1b}. */
    public String slug() {
        return label().replace(' ', '-');
    }
}
