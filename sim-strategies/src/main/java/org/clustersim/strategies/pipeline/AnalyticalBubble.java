package org.clustersim.strategies.pipeline;

/**
 * The published closed forms for pipeline bubbles and peak activations (GPipe, arXiv
 * 1811.06965; 1F1B and interleaving, arXiv 2104.04473; zero bubble, arXiv 2401.10241;
 * DualPipe, arXiv 2412.19437 table 2), as collected in the project's shared reference. These
 * are reference values shown next to measurements and used as test oracles; no reported
 * metric is ever computed from them. Times are one rank's share of one model copy (F, Bi, W);
 * fb is DualPipe's overlapped F&amp;B. docs/validation.md states where each form holds.
 */
public final class AnalyticalBubble {
    private AnalyticalBubble() {
    }

    /** Bubble per rank from the reference table, in the units of the arguments. */
    public static double bubble(ScheduleKind kind, int p, int v, double f, double bi, double w, double fb) {
        double bf = bi + w;
        return switch (kind) {
            case GPIPE, ONE_F_ONE_B -> (p - 1) * (f + bf);
            case INTERLEAVED -> (p - 1) * (f + bf) / v;
            case ZB_H1 -> (p - 1) * (f + bi - w);
            case ZB_H2 -> (p - 1) * (f + bi - 2 * w);
            case ZB_V -> 0;
            case DUALPIPE -> (p / 2.0 - 1) * (fb + bf - 3 * w);
            case DUALPIPE_V -> (p - 1) * (fb + bf - 3 * w) / 2;
        };
    }

    /**
     * Peak in-flight activations on the worst rank from the reference table, in microbatches of
     * one rank's share of one model copy (GPipe's m and 1F1B's p capped at m).
     */
    public static double peakActivations(ScheduleKind kind, int p, int m, int v) {
        return switch (kind) {
            case GPIPE -> m;
            case ONE_F_ONE_B, ZB_H1, ZB_V -> Math.min(p, m);
            case INTERLEAVED -> p * (1 + (p - 1) / (double) (v * p));
            case ZB_H2 -> Math.min(2 * p - 1, m);
            case DUALPIPE -> p + 1;
            // DualPipeV folds 2p stages onto p ranks: 2p + 1 stage activations of half a rank's share each
            case DUALPIPE_V -> (2 * p + 1) / 2.0;
        };
    }
}
