package org.clustersim.core.engine;

import java.util.List;

/**
 * A set of flows that run concurrently; a phase ends when its last flow has arrived plus a
 * fixed latency (a collective algorithm's per-step software and synchronisation latency,
 * which consumes no bandwidth). Collective algorithms are sequences of phases.
 *
 * @param flows          the concurrent flows, at least one
 * @param extraLatencyNs time added after the last flow arrives, at least 0
 */
public record Phase(List<Flow> flows, long extraLatencyNs) {
    public Phase {
        flows = List.copyOf(flows);
        if (flows.isEmpty()) {
            throw new IllegalArgumentException("a phase needs at least one flow");
        }
        if (extraLatencyNs < 0) {
            throw new IllegalArgumentException("phase latency must not be negative: " + extraLatencyNs);
        }
    }

    /** A phase with no latency of its own. */
    public Phase(List<Flow> flows) {
        this(flows, 0);
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
