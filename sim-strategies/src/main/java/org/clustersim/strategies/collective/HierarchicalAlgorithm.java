package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * Two-level all-reduce for k GPUs on each of N servers: a ring reduce-scatter inside each
 * server, k concurrent ring all-reduces of S/k across servers (one per local GPU index, so
 * each runs on its own rail), and a ring all-gather inside each server. Alpha-beta:
 * 2(k-1)/k S/B_intra + 2(N-1)/N (S/k)/B_inter plus 2(k-1) + 2(N-1) step latencies.
 */
public final class HierarchicalAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "hierarchical";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        if (op != CollectiveOp.ALL_REDUCE) {
            return Optional.of("hierarchical runs all-reduce only");
        }
        return group.notTwoLevel(topology);
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        List<int[]> nodes = g.byNode(topology);
        int k = nodes.get(0).length;
        int servers = nodes.size();
        PhasePlan plan = new PhasePlan(topology, protocol);
        for (int[] node : nodes) {
            RingAlgorithm.ring(plan, new CommGroup(node), (double) (k - 1) / k * bytes);
        }
        plan.endPhase(k - 1);
        for (int j = 0; j < k; j++) {
            int[] rail = new int[servers];
            for (int s = 0; s < servers; s++) {
                rail[s] = nodes.get(s)[j];
            }
            CommGroup ring = new CommGroup(rail);
            for (int r = 0; r < servers; r++) {
                plan.flow(ring.device(r), ring.device((r + 1) % servers), 2.0 * (servers - 1) / servers * bytes / k, j);
            }
        }
        plan.endPhase(2 * (servers - 1));
        for (int[] node : nodes) {
            RingAlgorithm.ring(plan, new CommGroup(node), (double) (k - 1) / k * bytes);
        }
        plan.endPhase(k - 1);
        return plan.phases();
    }
}
