package org.clustersim.study.plan;

import java.io.Serializable;
import java.util.Locale;

/**
 * One point of a plan's design space: the parallel layout, microbatch, recomputation, ZeRO stage,
 * pipeline schedule and the communication and memory options of a training step. {@code dp}
 * follows from the cluster's GPUs. The options past the schedule take a neutral value where a
 * plan leaves them to the base scenario (0, "" or false), so that a layout written before they
 * were searched reads the same.
 *
 * @param tp                 tensor-parallel size
 * @param pp                 pipeline-parallel size
 * @param cp                 context-parallel size
 * @param ep                 expert-parallel size
 * @param etp                expert tensor-parallel size (0: the base's, else tp's default)
 * @param vp                 model chunks per rank (the interleaved schedule's v; 2 for the V shapes; else 1)
 * @param dp                 data-parallel size: GPUs / (tp x pp x cp)
 * @param mb                 microbatch size in sequences
 * @param recompute          none, selective or full
 * @param recomputeModules   under selective recomputation, the modules recomputed joined by '+'
 *                           (core_attn+mlp); "" for the base's (Megatron-core's default, the attention core)
 * @param zero               ZeRO stage
 * @param zero3Impl          with ZeRO 3 the framework (megatron-fsdp, fsdp2, deepspeed); "" for the base's
 * @param schedule           pipeline schedule id (1f1b, interleaved, ...)
 * @param cpVariant          with cp > 1 how keys and values are shared (all-gather, ring); "" for the base's
 * @param tpOverlap          Megatron-core's userbuffers overlap of the TP collectives (tpCommOverlap)
 * @param overlapParamGather with ZeRO 1 or 2, the updated weights gathered ahead of the next forward
 * @param bucketMB           gradient bucket size in MB (0: the base's, else Megatron-core's rule)
 * @param offloadLayers      layers of each stage whose activations go to host memory (0: none)
 */
public record Layout(int tp, int pp, int cp, int ep, int etp, int vp, int dp, int mb, String recompute,
                     String recomputeModules, int zero, String zero3Impl, String schedule, String cpVariant,
                     boolean tpOverlap, boolean overlapParamGather, double bucketMB, int offloadLayers)
        implements Serializable {
    private static final long serialVersionUID = 2L;

    /** A layout with every option left to the base scenario. */
    public Layout(int tp, int pp, int cp, int ep, int vp, int dp, int mb, String recompute, int zero,
                  String schedule) {
        this(tp, pp, cp, ep, 0, vp, dp, mb, recompute, "", zero, "", schedule, "", false, false, 0, 0);
    }

    /**
     * A short label, such as {@code tp8 pp4 cp1 ep1 v1 dp32 mb1 selective zero1 1f1b}, with the
     * options that differ from their neutral value after it ({@code etp2}, {@code mods:core_attn+mlp},
     * {@code fsdp2}, {@code ring}, {@code tp-overlap}, {@code param-gather}, {@code bucket40},
     * {@code offload4}).
     */
    public String label() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "tp%d pp%d cp%d ep%d v%d dp%d mb%d %s zero%d %s", tp, pp, cp, ep, vp, dp, mb, recompute, zero,
                schedule));
        if (etp > 0) {
            sb.append(" etp").append(etp);
        }
        if (!recomputeModules.isEmpty()) {
            sb.append(" mods:").append(recomputeModules);
        }
        if (!zero3Impl.isEmpty()) {
            sb.append(' ').append(zero3Impl);
        }
        if (!cpVariant.isEmpty()) {
            sb.append(' ').append(cpVariant);
        }
        if (tpOverlap) {
            sb.append(" tp-overlap");
        }
        if (overlapParamGather) {
            sb.append(" param-gather");
        }
        if (bucketMB > 0) {
            sb.append(" bucket").append(bucketMB == Math.rint(bucketMB) ? String.valueOf((long) bucketMB)
                    : String.valueOf(bucketMB));
        }
        if (offloadLayers > 0) {
            sb.append(" offload").append(offloadLayers);
        }
        return sb.toString();
    }

    /** The label as a file-name part: {@code tp8-pp4-cp1-ep1-v1-dp32-mb1-selective-zero1-1f1b}. */
    public String slug() {
        return label().replace(' ', '-').replace(':', '-').replace('+', '-');
    }
}
