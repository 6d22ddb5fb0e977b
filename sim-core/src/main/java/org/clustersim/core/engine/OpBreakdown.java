package org.clustersim.core.engine;

import java.util.Arrays;
import java.util.List;

/**
 * What a compute task is made of, op by op (norm, qkv GEMM, attention core, ...), as shares of
 * its duration: a task stands for a block of kernels, and the trace shows how its time splits.
 * Shares rather than times, so that a task stretched by a slow GPU still shows its split. One
 * instance is shared by every task of the same block and pass.
 */
public final class OpBreakdown {
    private final String[] ops;
    private final double[] shares;

    /**
     * @param ops the ops' names, in order
     * @param ns  each op's time; they need not be normalised
     */
    public OpBreakdown(List<String> ops, double[] ns) {
        if (ops.size() != ns.length) {
            throw new IllegalArgumentException("one time per op");
        }
        double total = Arrays.stream(ns).sum();
        int kept = 0;
        for (double v : ns) {
            kept += v > 0 ? 1 : 0;
        }
        this.ops = new String[kept];
        this.shares = new double[kept];
        for (int i = 0, j = 0; i < ns.length; i++) {
            if (ns[i] > 0) {
                this.ops[j] = ops.get(i);
                this.shares[j++] = ns[i] / total;
            }
        }
    }

    public int size() {
        return ops.length;
    }

    public String op(int i) {
        return ops[i];
    }

    /** Op i's share of the task's duration. */
    public double share(int i) {
        return shares[i];
    }
}
