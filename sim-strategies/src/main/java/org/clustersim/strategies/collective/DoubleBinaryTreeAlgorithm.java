package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * The double binary tree (Sanders, Speck, Traeff 2009; NCCL's Tree): two binary trees over
 * the ranks, the second the first with ranks mirrored, so that most interior ranks of one are
 * leaves of the other; each tree reduces half the data up to its root and broadcasts it back
 * down, pipelined, so reduce and broadcast flows run together. Latency grows with the depth
 * (2 ceil(log2 n) steps) instead of n; each rank's links carry up to 2S (an interior rank
 * of one tree receives from two children and sends to two), which bounds its bandwidth.
 */
public final class DoubleBinaryTreeAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "tree";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        return op == CollectiveOp.ALL_REDUCE ? Optional.empty()
                : Optional.of("the double binary tree runs all-reduce only");
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        int n = g.size();
        PhasePlan plan = new PhasePlan(topology, protocol);
        double half = bytes / 2.0;
        for (int tree = 0; tree < 2; tree++) {
            for (int i = 1; i < n; i++) {
                int child = rank(i, n, tree);
                int parent = rank((i - 1) / 2, n, tree);
                plan.flow(g.device(child), g.device(parent), half, tree);
                plan.flow(g.device(parent), g.device(child), half, tree);
            }
        }
        plan.endPhase(2 * depth(n));
        return plan.phases();
    }

    /** Position i of tree {@code tree}: the heap layout itself, or its mirror image. */
    private static int rank(int i, int n, int tree) {
        return tree == 0 ? i : n - 1 - i;
    }

    /** Levels below the root of a heap-ordered binary tree of n nodes: the bit length of n - 1. */
    static int depth(int n) {
        return n <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(n - 1);
    }
}
