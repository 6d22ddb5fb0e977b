package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * Recursive halving-doubling (Thakur, Rabenseifner, Gropp 2005): reduce-scatter by log2 n
 * pairwise exchanges of halving size with partners at distance n/2, n/4, ..., then
 * all-gather by doubling in reverse. Alpha-beta: 2 log2(n) alpha + 2(n-1)/n S beta for
 * all-reduce. Needs a power-of-two group.
 */
public final class HalvingDoublingAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "halving-doubling";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        if (Integer.bitCount(group.size()) != 1) {
            return Optional.of("the group size must be a power of two, got " + group.size());
        }
        if (op != CollectiveOp.ALL_REDUCE && op != CollectiveOp.REDUCE_SCATTER && op != CollectiveOp.ALL_GATHER) {
            return Optional.of("halving-doubling runs all-reduce, reduce-scatter and all-gather");
        }
        return Optional.empty();
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        int n = g.size();
        PhasePlan plan = new PhasePlan(topology, protocol);
        if (n == 1) {
            plan.endPhase(0);
            return plan.phases();
        }
        if (op != CollectiveOp.ALL_GATHER) {
            double size = bytes;
            for (int d = n / 2; d >= 1; d /= 2) {
                size /= 2;
                exchange(plan, g, d, size);
            }
        }
        if (op != CollectiveOp.REDUCE_SCATTER) {
            double size = (double) bytes / n;
            for (int d = 1; d < n; d *= 2) {
                exchange(plan, g, d, size);
                size *= 2;
            }
        }
        return plan.phases();
    }

    private static void exchange(PhasePlan plan, CommGroup g, int distance, double bytes) {
        for (int r = 0; r < g.size(); r++) {
            plan.flow(g.device(r), g.device(r ^ distance), bytes);
        }
        plan.endPhase(1);
    }
}
