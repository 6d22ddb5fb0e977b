package org.clustersim.core.network;

import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Topology;

/**
 * Per link, its capacity in its current state and the total rate of the flows and classes
 * crossing it, with what a change of that rate means for the link's statistics
 * ({@link LinkUsage}): the time it carried anything, and its throughput track. The hot loops
 * work on link ids and bytes per ns.
 *
 * <p>A link's rate and the time it became busy sit side by side in one array (the rate as its
 * bits): every change reads both, and on the largest fabrics (100,000 links and more) the links
 * a step touches at once are far apart, so two arrays cost two cache misses per change.
 *
 * <p>A flow class's binding links carry that class alone, and no rating reads them while it
 * runs (a flow placed there splits the class first): unless throughput tracks are kept, the
 * class's rate stays off their totals ({@link #bindingOffTotals}) and their busy time is
 * added when the class ends ({@link #busyAlone}), or the rate is put on when it is split
 * ({@link #addSince}). A ring step inside an NVSwitch domain touches sixteen such links at its
 * start and its end, each a cache miss on a 16,384-GPU fabric.
 */
final class LinkRates {
    /**
     * A link whose flows' rates add up to at most this many bytes per ns (1 KB/s) carries
     * nothing: what adding and taking away many flows' rates leaves behind is rounding, and on a
     * fast link crossed by dozens of flows at once (an NVLink port of a GB200 NVL72 all-to-all)
     * it exceeds the residue {@link #add} clears. Busy time counts from the moment a link's
     * total rises above this to the moment it falls back, so that such a residue does not leave
     * a link busy for good and its busy time uncounted. The rate itself is kept as added up.
     */
    static final double IDLE = 1e-6;
    private final LinkStates states;
    private final LinkUsage usage;
    /** Whether link throughput tracks are kept (read once: every rate change asks). */
    private final boolean tracksRates;
    /** Links by id, and their nominal capacities in bytes per ns. */
    private final Link[] linkOf;
    private final double[] nominal;
    /** Per link {@code id}: at {@code 2 id} its total rate (double bits), at {@code 2 id + 1} since when it carries any. */
    private final long[] state;

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
        state = new long[2 * n];
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
        return Double.longBitsToDouble(state[2 * id]);
    }

    /**
     * Whether a flow class's rate may stay off its binding links' totals while it runs: only
     * when no throughput track records each change of a link's rate.
     */
    boolean bindingOffTotals() {
        return !tracksRates;
    }

    /**
     * A link that carried one flow class alone, its rate kept off the total, from {@code since}
     * to {@code now}: its busy time, as {@link #add} would have counted it.
     */
    void busyAlone(int id, long since, long now) {
        usage.busy(id, now - since);
    }

    /**
     * Puts on a link's total, now, a class's rate kept off it since {@code since} (the class is
     * being split): the link counts as busy from then, as if the rate had been added then.
     */
    void addSince(int id, double rate, long since) {
        add(id, rate, since);
    }

    /** Adds {@code delta} bytes per ns to a link's rate from {@code now} on (a residue of rounding becomes 0). */
    void add(int id, double delta, long now) {
        int at = 2 * id;
        double before = Double.longBitsToDouble(state[at]);
        double after = before + delta;
        if (Math.abs(after) < 1e-12) {
            after = 0;
        }
        if (before <= IDLE && after > IDLE) {
            state[at + 1] = now;
        } else if (before > IDLE && after <= IDLE) {
            usage.busy(id, now - state[at + 1]);
        }
        state[at] = Double.doubleToRawLongBits(after);
        if (tracksRates) {
            usage.rateChange(linkOf[id], now, delta * 1e9);
        }
    }
}
