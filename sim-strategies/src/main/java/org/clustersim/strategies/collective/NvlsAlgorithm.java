package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * NVLS: all-reduce inside the NVSwitch. Every GPU writes its whole buffer into the switch,
 * which reduces and multicasts the result back, so each GPU's link carries S in each
 * direction once, at NVLS's sustained rate, in two steps (reduce, multicast). Modelled as a
 * ring of flows of S each, which loads every GPU's up- and down-link by exactly S. Only on a
 * scale-up switch with in-network reduction (H100 NVSwitch), only the bulk protocol.
 */
public final class NvlsAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "nvls";
    }

    @Override
    public Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology) {
        if (op != CollectiveOp.ALL_REDUCE) {
            return Optional.of("nvls runs all-reduce only");
        }
        if (!topology.tuning().nvlsCapable()) {
            return Optional.of(topology.name() + " has no in-switch reduction");
        }
        if (!group.singleNode(topology)) {
            return Optional.of("nvls needs every rank inside one NVSwitch domain");
        }
        return Optional.empty();
    }

    @Override
    public List<Protocol> protocols() {
        return List.of(Protocol.SIMPLE);
    }

    @Override
    public List<Phase> plan(CollectiveOp op, CommGroup g, long bytes, Protocol protocol, Topology topology) {
        requireSupported(op, g, topology);
        PhasePlan plan = new PhasePlan(topology, Protocol.SIMPLE, topology.tuning().nvlsEfficiency());
        RingAlgorithm.ring(plan, g, bytes);
        plan.endPhase(2);
        return plan.phases();
    }
}
