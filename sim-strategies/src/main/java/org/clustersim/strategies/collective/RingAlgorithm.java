package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * The pipelined ring (NCCL's Ring): rank r streams to rank r + 1. All-reduce is one phase in
 * which every ring edge carries 2(n-1)/n S over 2(n-1) steps; reduce-scatter and all-gather
 * carry (n-1)/n S over n-1 steps; broadcast and reduce pipeline S down a chain from (or to)
 * rank 0. Alpha-beta: 2(n-1) alpha + 2(n-1)/n S beta for all-reduce.
 */
public final class RingAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "ring";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        if (op == CollectiveOp.ALL_TO_ALL) {
            return Optional.of("all-to-all has no ring form; use direct");
        }
        if (op == CollectiveOp.SEND_RECV && group.size() != 2) {
            return Optional.of("send/recv takes exactly 2 ranks (sender, receiver)");
        }
        return Optional.empty();
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        int n = g.size();
        PhasePlan plan = new PhasePlan(topology, protocol);
        switch (op) {
            case ALL_REDUCE -> {
                ring(plan, g, 2.0 * (n - 1) / n * bytes);
                plan.endPhase(2 * (n - 1));
            }
            case REDUCE_SCATTER, ALL_GATHER -> {
                ring(plan, g, (double) (n - 1) / n * bytes);
                plan.endPhase(n - 1);
            }
            case BROADCAST, SEND_RECV -> {
                for (int r = 0; r + 1 < n; r++) {
                    plan.flow(g.device(r), g.device(r + 1), bytes);
                }
                plan.endPhase(n - 1);
            }
            case REDUCE -> {
                for (int r = n - 1; r > 0; r--) {
                    plan.flow(g.device(r), g.device(r - 1), bytes);
                }
                plan.endPhase(n - 1);
            }
            default -> throw new IllegalArgumentException(op.id());
        }
        return plan.phases();
    }

    static void ring(PhasePlan plan, CommGroup g, double perEdge) {
        int n = g.size();
        if (n < 2) {
            return;
        }
        for (int r = 0; r < n; r++) {
            plan.flow(g.device(r), g.device((r + 1) % n), perEdge);
        }
    }
}
