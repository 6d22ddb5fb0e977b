package org.clustersim.core.network;

import java.util.List;

import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Route;

/**
 * Which flows and flow classes sit on which links: per link, the flows crossing it (in slots,
 * each flow knowing its slot per hop, {@link ActiveFlow#slot}), the running classes
 * ({@link ClassLinks}), and the load adaptive routing reads. A flow placed on a link for which a
 * class is binding splits that class into its members first; so does a rating that saturates a
 * link a class shares, or a fault on any of a class's links.
 */
final class FlowPlacement {
    private final LinkStates states;
    private final LinkSlots<ActiveFlow> onLink;
    private final ClassLinks classes;
    /**
     * Per link, what adaptive routing counts as its load: flows on it, members of classes
     * crossing it, and flows of the phase being started that are routed but not placed yet.
     */
    private final int[] load;
    private final FinishTimer timer;
    private final FlowStats stats;
    private final LinkRates rates;

    FlowPlacement(LinkStates states, LinkSlots<ActiveFlow> onLink, ClassLinks classes, int[] load, FinishTimer timer,
                  FlowStats stats, LinkRates rates) {
        this.stats = stats;
        this.rates = rates;
        this.states = states;
        this.onLink = onLink;
        this.classes = classes;
        this.load = load;
        this.timer = timer;
    }

    /** The flows on a link, a view valid until the link next changes. */
    List<ActiveFlow> flowsOn(int id) {
        return onLink.list(id);
    }

    /** A route's latency in the links' current states. */
    long latencyOf(List<Link> links) {
        long latency = 0;
        for (Link l : links) {
            latency += states.latencyNs(l);
        }
        return latency;
    }

    /**
     * Puts a flow on its route's links, splitting first the classes for which any of them is binding.
     *
     * @param counted whether the flow is counted in the links' load already
     */
    void place(ActiveFlow a, Route route, boolean counted) {
        for (int id : route.sharedIds()) {
            ActiveFlow c = classes.bindingOn(id);
            if (c != null) {
                split(c, a.updatedAt, null);
            }
        }
        a.links = route.sharedIds();
        a.latency = states.version() == 0 ? route.latencyNs() : latencyOf(route.links());
        a.slot = new int[a.links.length];
        for (int h = 0; h < a.links.length; h++) {
            int id = a.links[h];
            onLink.add(id, a, h);
            if (!counted) {
                load[id]++;
            }
        }
    }

    /** Takes a flow off its links in constant time per hop: the link's last flow moves into its slot. */
    void unplace(ActiveFlow a) {
        for (int h = 0; h < a.links.length; h++) {
            int id = a.links[h];
            onLink.remove(id, a.slot[h]);
            load[id]--;
        }
    }

    /**
     * Puts a starting class ({@link ActiveFlow#members} set) on its links.
     *
     * @param counted whether its members are counted in the links' load already
     */
    void placeClass(ActiveFlow c, boolean counted) {
        classes.add(c);
        if (!counted) {
            FlowClass sym = c.members;
            for (int j = 0; j < sym.links.length; j++) {
                load[sym.links[j]] += sym.counts[j];
            }
        }
    }

    /** Takes a finished class off its links; its members leave the links' load. */
    void unplaceClass(ActiveFlow c) {
        classes.remove(c);
        FlowClass sym = c.members;
        for (int j = 0; j < sym.links.length; j++) {
            load[sym.links[j]] -= sym.counts[j];
        }
    }

    /**
     * Replaces a class by its members, placed on their links with the bytes, rate and finish
     * time they share. The links' rate totals stay as they are, the class's rate on its binding
     * links put on first where it was kept off them ({@link LinkRates#addSince}).
     *
     * @param joined where the members are added, or null
     */
    void split(ActiveFlow c, long now, List<ActiveFlow> joined) {
        stats.classesSplit++;
        c.settle(now);
        FlowClass sym = c.members;
        if (c.bindingSince >= 0) {
            for (int j = 0; j < sym.links.length; j++) {
                if (sym.binding[j]) {
                    rates.addSince(sym.links[j], sym.counts[j] * sym.rate, c.bindingSince);
                }
            }
            c.bindingSince = -1;
        }
        long finish = c.finishAt;
        c.finishAt = Long.MAX_VALUE;
        timer.update(c);
        c.done = true;
        classes.remove(c);
        for (int k = 0; k < sym.flows.length; k++) {
            ActiveFlow m = new ActiveFlow(c.memberBase + sym.index[k], sym.flows[k], c.owner, c.phase, c.remaining, now);
            m.rate = c.rate;
            place(m, sym.routes[k], true);
            m.finishAt = finish;
            timer.update(m);
            if (joined != null) {
                joined.add(m);
            }
        }
    }

    /** Splits every class crossing a link, binding or not; their members join {@code joined} (or null). */
    void splitAllOn(int id, long now, List<ActiveFlow> joined) {
        if (classes.bindingOn(id) != null) {
            split(classes.bindingOn(id), now, joined);
        }
        while (classes.sharedCount(id) > 0) {
            split(classes.sharedAt(id, 0), now, joined);
        }
    }
}
