package org.clustersim.core.engine;

import java.util.List;

/**
 * A set of flows that run concurrently; a phase ends when its last flow has arrived.
 * Collective algorithms are sequences of phases.
 *
 * @param flows the concurrent flows, at least one
 */
public record Phase(List<Flow> flows) {
    public Phase {
        flows = List.copyOf(flows);
        if (flows.isEmpty()) {
            throw new IllegalArgumentException("a phase needs at least one flow");
        }
    }

    /** Total payload of the phase. */
    public long bytes() {
        long sum = 0;
        for (Flow f : flows) {
            sum += f.bytes();
        }
        return sum;
    }
}
