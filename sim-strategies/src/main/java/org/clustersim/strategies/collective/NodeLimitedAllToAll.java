package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * MoE token dispatch under node-limited routing (DeepSeek-V3 report, section 2.1.2; DeepEP):
 * each token goes to topK experts on at most {@code nodeLimit} servers, crosses the network
 * once per chosen server (to the GPU of its own rail there) and fans out to its experts on
 * that server over NVLink. With balanced routing a GPU sends each other server
 * d/N of its tokens (d = min(nodeLimit, N, topK) servers per token, N servers), and each
 * GPU forwards to every local peer its share of the expert copies that arrived. The size
 * {@code bytes} is the direct exchange's: every token once per chosen expert; the network
 * carries d/topK of that instead of (N-1)/N.
 */
public final class NodeLimitedAllToAll implements CollectiveAlgorithm {
    private final int topK;
    private final int nodeLimit;

    /**
     * @param topK      experts per token
     * @param nodeLimit servers per token at most
     */
    public NodeLimitedAllToAll(int topK, int nodeLimit) {
        if (topK < 1 || nodeLimit < 1) {
            throw new IllegalArgumentException("topK and nodeLimit must be at least 1");
        }
        this.topK = topK;
        this.nodeLimit = nodeLimit;
    }

    @Override
    public String name() {
        return "node-limited";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        if (op != CollectiveOp.ALL_TO_ALL) {
            return Optional.of("node-limited dispatch is an all-to-all");
        }
        return group.notTwoLevel(topology);
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        List<int[]> nodes = g.byNode(topology);
        int servers = nodes.size();
        int k = nodes.get(0).length;
        double tokens = (double) bytes / topK; // one copy of the GPU's tokens
        double servedPerToken = Math.min(Math.min(nodeLimit, servers), topK);
        PhasePlan plan = new PhasePlan(topology, protocol);
        plan.acrossRails(nodes, tokens * servedPerToken / servers);
        // every expert copy that arrived (or stayed) is spread over the server's k GPUs
        plan.withinServers(nodes, (double) bytes / k);
        return plan.phases();
    }
}
