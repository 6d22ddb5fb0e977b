package org.clustersim.strategies.training;

import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.pipeline.ActionKind;

/**
 * Which of a layer's passes an action runs: the forward, the input-gradient half of the
 * backward, its weight-gradient half, or the whole backward. A block's time and work in a
 * pass come from the cost model's per-pass figures.
 */
enum Pass {
    F, BI, W, B;

    static Pass of(ActionKind k) {
        return switch (k) {
            case FORWARD -> F;
            case BACKWARD_INPUT -> BI;
            case BACKWARD_WEIGHT -> W;
            case BACKWARD -> B;
        };
    }

    boolean backward() {
        return this != F;
    }

    /** Whether the pass completes weight gradients (what gradient buckets wait for). */
    boolean completesGradients() {
        return this == W || this == B;
    }

    double ns(LayerCostModel.Block b) {
        return switch (this) {
            case F -> b.fNs();
            case BI -> b.biNs();
            case W -> b.wNs();
            case B -> b.biNs() + b.wNs();
        };
    }

    double flops(LayerCostModel.Block b) {
        return switch (this) {
            case F -> b.fFlops();
            case BI -> b.biFlops();
            case W -> b.wFlops();
            case B -> b.biFlops() + b.wFlops();
        };
    }

    double ns(LayerCostModel.OpTime t) {
        return switch (this) {
            case F -> t.fNs();
            case BI -> t.biNs();
            case W -> t.wNs();
            case B -> t.biNs() + t.wNs();
        };
    }
}
