package org.clustersim.strategies.collective;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.topology.CommTuning;
import org.clustersim.topology.Topology;

/**
 * Assembles an algorithm's phases. Each flow's logical bytes are divided by the efficiency
 * the protocol reaches on the flow's medium (the network when its route leaves through a
 * NIC, the scale-up fabric - NVLink or ICI - otherwise), so a flow occupies its links as long as the real protocol would; each phase ends
 * with its algorithm steps' latency (the protocol's base latency is charged once, with the
 * first phase).
 */
final class PhasePlan {
    private final Topology topology;
    private final CommTuning.Protocol protocol;
    private final CommTuning tuning;
    private final double nvlsEfficiency;
    private final List<Phase> phases = new ArrayList<>();
    private List<Flow> current = new ArrayList<>();
    private boolean crossesNetwork;

    /** @param nvlsEfficiency the NVLS efficiency to apply to every flow, or 0 for the medium's own */
    PhasePlan(Topology topology, Protocol protocol, double nvlsEfficiency) {
        this.topology = topology;
        this.tuning = topology.tuning();
        this.protocol = protocol.in(tuning);
        this.nvlsEfficiency = nvlsEfficiency;
    }

    PhasePlan(Topology topology, Protocol protocol) {
        this(topology, protocol, 0);
    }

    /** Adds a flow of {@code logicalBytes} payload to the current phase. */
    void flow(int src, int dst, double logicalBytes, int channel) {
        boolean net = topology.leavesScaleUp(src, dst, channel);
        crossesNetwork |= net;
        double medium = nvlsEfficiency > 0 ? nvlsEfficiency : net ? tuning.netEfficiency() : tuning.nvlinkEfficiency();
        long wire = (long) Math.ceil(logicalBytes / (medium * protocol.efficiency()));
        current.add(new Flow(src, dst, wire, channel));
    }

    void flow(int src, int dst, double logicalBytes) {
        flow(src, dst, logicalBytes, 0);
    }

    /**
     * Closes the current phase, charging {@code steps} step latencies of its medium. A phase
     * with no flow (a group of one) becomes an empty self-transfer.
     */
    void endPhase(int steps) {
        long step = nvlsEfficiency > 0 ? tuning.nvlsStepNs()
                : crossesNetwork ? protocol.netStepNs() : protocol.nvlinkStepNs();
        long base = phases.isEmpty() && nvlsEfficiency == 0 ? protocol.baseNs() : 0;
        if (current.isEmpty()) {
            current.add(new Flow(0, 0, 0));
            steps = 0;
        }
        phases.add(new Phase(current, base + steps * step));
        current = new ArrayList<>();
        crossesNetwork = false;
    }

    boolean isEmpty() {
        return phases.isEmpty() && current.isEmpty();
    }

    List<Phase> phases() {
        if (!current.isEmpty()) {
            throw new IllegalStateException("unfinished phase");
        }
        return List.copyOf(phases);
    }

    /**
     * A phase in which every GPU sends {@code bytes} to each other GPU of its server (skipped when
     * servers hold one GPU).
     *
     * @param nodes the group's GPUs by server, equal numbers each
     */
    void withinServers(List<int[]> nodes, double bytes) {
        int k = nodes.get(0).length;
        if (k < 2) {
            return;
        }
        for (int[] node : nodes) {
            for (int i = 0; i < k; i++) {
                for (int j = 0; j < k; j++) {
                    if (i != j) {
                        flow(node[i], node[j], bytes);
                    }
                }
            }
        }
        endPhase(k - 1);
    }

    /**
     * A phase in which every GPU sends {@code bytes} to the GPU of its own local index (its rail)
     * on each other server, on channel = local index.
     *
     * @param nodes the group's GPUs by server, equal numbers each
     */
    void acrossRails(List<int[]> nodes, double bytes) {
        int servers = nodes.size();
        for (int j = 0; j < nodes.get(0).length; j++) {
            for (int s = 0; s < servers; s++) {
                for (int t = 0; t < servers; t++) {
                    if (s != t) {
                        flow(nodes.get(s)[j], nodes.get(t)[j], bytes, j);
                    }
                }
            }
        }
        endPhase(servers - 1);
    }
}
