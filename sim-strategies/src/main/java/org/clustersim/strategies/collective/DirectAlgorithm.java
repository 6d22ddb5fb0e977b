package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * Direct exchange: every rank sends its S/n share for every other rank straight to it, all at
 * once (all-to-all, and the one-shot reduce-scatter and all-gather; all-reduce is the two in
 * sequence). Alpha-beta: (n-1) alpha + (n-1)/n S beta per exchange.
 */
public final class DirectAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "direct";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        return switch (op) {
            case ALL_TO_ALL, ALL_GATHER, REDUCE_SCATTER, ALL_REDUCE -> Optional.empty();
            default -> Optional.of("direct runs all-to-all, all-gather, reduce-scatter and all-reduce");
        };
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        int n = g.size();
        PhasePlan plan = new PhasePlan(topology, protocol);
        int exchanges = op == CollectiveOp.ALL_REDUCE ? 2 : 1;
        for (int e = 0; e < exchanges; e++) {
            for (int s = 0; s < n; s++) {
                for (int d = 0; d < n; d++) {
                    if (s != d) {
                        plan.flow(g.device(s), g.device(d), (double) bytes / n);
                    }
                }
            }
            plan.endPhase(n - 1);
        }
        return plan.phases();
    }
}
