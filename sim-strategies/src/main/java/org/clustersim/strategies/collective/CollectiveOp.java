package org.clustersim.strategies.collective;

import java.util.Locale;
import java.util.Optional;

/**
 * The collective operations, with nccl-tests' conventions for the size S (the whole buffer
 * for all-reduce, broadcast and reduce; the whole gathered array for reduce-scatter,
 * all-gather and all-to-all) and the bus-bandwidth factor that makes busbw comparable across
 * group sizes.
 */
public enum CollectiveOp {
    ALL_REDUCE("allreduce"),
    REDUCE_SCATTER("reducescatter"),
    ALL_GATHER("allgather"),
    ALL_TO_ALL("alltoall"),
    BROADCAST("broadcast"),
    REDUCE("reduce"),
    SEND_RECV("sendrecv");

    private final String id;

    CollectiveOp(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** nccl-tests' busbw / algbw factor for n ranks: 2(n-1)/n, (n-1)/n, or 1. */
    public double busBandwidthFactor(int n) {
        return switch (this) {
            case ALL_REDUCE -> 2.0 * (n - 1) / n;
            case REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL -> (double) (n - 1) / n;
            case BROADCAST, REDUCE, SEND_RECV -> 1.0;
        };
    }

    public static Optional<CollectiveOp> byId(String id) {
        String k = id.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
        for (CollectiveOp op : values()) {
            if (op.id.equals(k)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }
}
