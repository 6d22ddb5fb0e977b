package org.clustersim.topology;

import java.util.Arrays;

/**
 * The health of every link of a topology during one run: the fraction of its capacity it
 * offers (1 healthy, between 0 and 1 degraded, 0 down) and extra latency. Faults change it
 * while a run goes on; each change bumps {@link #version()} so that cached routes and rates
 * can tell they are stale. One instance per simulation; the topology itself stays immutable.
 */
public final class LinkStates {
    private final double[] factor;
    private final long[] extraLatencyNs;
    private long version;

    /** All links healthy. */
    public LinkStates(int links) {
        factor = new double[links];
        Arrays.fill(factor, 1.0);
        extraLatencyNs = new long[links];
    }

    /** All links of {@code topology} healthy. */
    public static LinkStates healthy(Topology topology) {
        return new LinkStates(topology.links().size());
    }

    public boolean up(int link) {
        return factor[link] > 0;
    }

    /** Fraction of nominal capacity the link offers. */
    public double factor(int link) {
        return factor[link];
    }

    /** Capacity of {@code link} in its current state, bytes per second. */
    public double capacity(Link link) {
        return link.bandwidthBytesPerS() * factor[link.id()];
    }

    /** Latency of {@code link} in its current state, ns. */
    public long latencyNs(Link link) {
        return link.latencyNs() + extraLatencyNs[link.id()];
    }

    /** Sets a link's capacity fraction: 0 takes it down, 1 restores it. */
    public void setFactor(int link, double f) {
        if (!(f >= 0 && f <= 1)) {
            throw new IllegalArgumentException("capacity fraction must be in [0, 1], got " + f);
        }
        factor[link] = f;
        version++;
    }

    /** Adds latency to a link (a bad cable retransmitting, a long detour). */
    public void setExtraLatencyNs(int link, long ns) {
        if (ns < 0) {
            throw new IllegalArgumentException("extra latency must not be negative");
        }
        extraLatencyNs[link] = ns;
        version++;
    }

    /** Changes with every state change. */
    public long version() {
        return version;
    }

    /** Number of links tracked. */
    public int size() {
        return factor.length;
    }
}
