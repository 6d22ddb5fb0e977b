package org.clustersim.strategies.device;

import java.util.EnumMap;
import java.util.Map;

/**
 * How many kernels each memory-bound operation launches in its forward and its backward, as
 * the framework runs it on this device (Megatron-core with Transformer Engine for the bundled
 * profiles). With the launch costs they set how much a short operation costs beyond its bytes.
 */
public final class KernelCounts {
    private final Map<Op, int[]> counts;

    public KernelCounts(Map<Op, int[]> counts) {
        this.counts = new EnumMap<>(Op.class);
        for (Op op : Op.values()) {
            int[] c = counts.get(op);
            if (c == null || c.length != 2) {
                throw new IllegalArgumentException("kernel counts need forward and backward for " + op.key());
            }
            this.counts.put(op, c.clone());
        }
    }

    public int forward(Op op) {
        return counts.get(op)[0];
    }

    public int backward(Op op) {
        return counts.get(op)[1];
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof KernelCounts k)) {
            return false;
        }
        for (Op op : Op.values()) {
            if (forward(op) != k.forward(op) || backward(op) != k.backward(op)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 0;
        for (Op op : Op.values()) {
            h = 31 * h + forward(op) * 7 + backward(op);
        }
        return h;
    }
}
