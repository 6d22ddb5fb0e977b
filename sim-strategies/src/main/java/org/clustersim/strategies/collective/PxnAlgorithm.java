package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * All-to-all across servers with rail-aligned network traffic, as NCCL's PXN (PCI x NVLink)
 * does on multi-rail clusters: first every GPU hands each local peer, over NVLink, what that
 * peer's rail must carry (the peer's own share and the shares of the GPUs with the peer's
 * local index on every other server); then each GPU sends one message per other server, on
 * its own rail, to the GPU of its local index there. Network bytes per GPU equal the direct
 * exchange's ((N-1)/N S), but they never leave their rail, and a group of N servers of k GPUs
 * needs n(k-1) + n(N-1) flows instead of n(n-1). Alpha-beta: (k-1) alpha + S/B_nvlink +
 * (N-1) alpha + (N-1)/N S / B_nic.
 */
public final class PxnAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "pxn";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        if (op != CollectiveOp.ALL_TO_ALL) {
            return Optional.of("pxn runs all-to-all only");
        }
        return group.notTwoLevel(topology);
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        List<int[]> nodes = g.byNode(topology);
        int servers = nodes.size();
        int k = nodes.get(0).length;
        double share = (double) bytes / (servers * k);
        PhasePlan plan = new PhasePlan(topology, protocol);
        plan.withinServers(nodes, share * servers);
        plan.acrossRails(nodes, share * k);
        return plan.phases();
    }
}
