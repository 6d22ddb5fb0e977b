package org.clustersim.core.engine;

import java.util.List;

/**
 * A set of flows that run concurrently; a phase ends when its last flow has arrived plus a
 * fixed latency (a collective algorithm's per-step software and synchronisation latency,
 * which consumes no bandwidth). Collective algorithms are sequences of phases.
 *
 * <p>A phase is a value: {@link #equals}, {@link #hashCode} and {@link #toString} are those of a
 * record of its flows and latency. Beside the value it carries one slot for the network that
 * runs it ({@link #networkState}): a 16,384-GPU step starts each of its 37,136 phases up to 128
 * times, and a field read per start costs less than a lookup in a table of every phase (a
 * cache miss per start; docs/benchmarks.md, issue 33).
 */
public final class Phase {
    private final List<Flow> flows;
    private final long extraLatencyNs;
    /** Not part of the value; see {@link #networkState()}. */
    private Object networkState;

    /**
     * @param flows          the concurrent flows, at least one
     * @param extraLatencyNs time added after the last flow arrives, at least 0
     */
    public Phase(List<Flow> flows, long extraLatencyNs) {
        List<Flow> copy = List.copyOf(flows);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("a phase needs at least one flow");
        }
        if (extraLatencyNs < 0) {
            throw new IllegalArgumentException("phase latency must not be negative: " + extraLatencyNs);
        }
        this.flows = copy;
        this.extraLatencyNs = extraLatencyNs;
    }

    /** A phase with no latency of its own. */
    public Phase(List<Flow> flows) {
        this(flows, 0);
    }

    /** The concurrent flows, at least one. */
    public List<Flow> flows() {
        return flows;
    }

    /** Time added after the last flow arrives, at least 0. */
    public long extraLatencyNs() {
        return extraLatencyNs;
    }

    /** Total payload of the phase. */
    public long bytes() {
        long sum = 0;
        for (Flow f : flows) {
            sum += f.bytes();
        }
        return sum;
    }

    /**
     * What the network that last ran this phase kept of it (its routes), or null. Several
     * simulations may run one phase, one after another or side by side: a network must check
     * that what it finds is its own (and not trust anything else in it), and may replace it.
     */
    public Object networkState() {
        return networkState;
    }

    /** Sets what {@link #networkState()} returns. */
    public void networkState(Object state) {
        networkState = state;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Phase p && p.extraLatencyNs == extraLatencyNs && p.flows.equals(flows);
    }

    /** As a record of (flows, extraLatencyNs) computes it. */
    @Override
    public int hashCode() {
        return 31 * flows.hashCode() + Long.hashCode(extraLatencyNs);
    }

    @Override
    public String toString() {
        return "Phase[flows=" + flows + ", extraLatencyNs=" + extraLatencyNs + "]";
    }
}
