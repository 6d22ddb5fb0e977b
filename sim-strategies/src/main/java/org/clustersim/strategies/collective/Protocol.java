package org.clustersim.strategies.collective;

import org.clustersim.topology.CommTuning;

/** NCCL's wire protocols: low latency (LL), LL128, and the bulk protocol (Simple). */
public enum Protocol {
    LL, LL128, SIMPLE;

    /** This protocol's constants in a machine's tuning. */
    public CommTuning.Protocol in(CommTuning t) {
        return switch (this) {
            case LL -> t.ll();
            case LL128 -> t.ll128();
            case SIMPLE -> t.simple();
        };
    }
}
