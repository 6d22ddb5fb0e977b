package org.clustersim.core.network;

import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Topology;

/**
 * Per link, its capacity in its current state and the total rate of the flows and classes
 * crossing it, with what a change of that rate means for the link's statistics
 * ({@link LinkUsage}): the time it carried anything, and its throughput track. The hot loops
 * work on link ids and bytes per ns.
 */
final class LinkRates {
    private final LinkStates states;
    private final LinkUsage usage;
    /** Whether link throughput tracks are kept (read once: every rate change asks). */
    private final boolean tracksRates;
    /** Links by id, and their nominal capacities in bytes per ns. */
    private final Link[] linkOf;
    private final double[] nominal;
    private final double[] rate;
    private final long[] busySince;

    LinkRates(Topology topology, LinkStates states, LinkUsage usage) {
        this.states = states;
        this.usage = usage;
        this.tracksRates = usage.tracksRates();
        int n = topology.links().size();
        linkOf = topology.links().toArray(new Link[0]);
        nominal = new double[n];
        for (int i = 0; i < n; i++) {
            nominal[i] = linkOf[i].bandwidthBytesPerS() / 1e9;
        }
        rate = new double[n];
        busySince = new long[n];
    }

    /** Per link, its nominal capacity in bytes per ns (not to be written). */
    double[] nominal() {
        return nominal;
    }

    /** A link's capacity in its current state, bytes per ns. */
    double capacity(int id) {
        return nominal[id] * states.factor(id);
    }

    /** Current total rate on a link, bytes per ns. */
    double rate(int id) {
        return rate[id];
    }

    /** Adds {@code delta} bytes per ns to a link's rate from {@code now} on (a residue of rounding becomes 0). */
    void add(int id, double delta, long now) {
        double before = rate[id];
        double after = before + delta;
        if (Math.abs(after) < 1e-12) {
            after = 0;
        }
        if (before == 0 && after > 0) {
            busySince[id] = now;
        } else if (before > 0 && after == 0) {
            usage.busy(id, now - busySince[id]);
        }
        rate[id] = after;
        if (tracksRates) {
            usage.rateChange(linkOf[id], now, delta * 1e9);
        }
    }
}
