package org.clustersim.core.network;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.Flow;
import org.clustersim.topology.Route;

/**
 * Flows of one phase that max-min fairness gives one rate, so that one entry can stand for all
 * of them (a weighted flow class): equal sizes, and every member crossing a <em>binding</em>
 * link - one that only members of this class cross in the phase, whose capacity over the
 * members crossing it is the class's rate. A ring step inside an NVSwitch domain (every link
 * binding), the NVLink and the network part of a direct all-to-all (each GPU's NIC carries 56
 * equal flows) are such classes, and so is a lone flow, such as a pipeline send, on links no other
 * flow of its phase crosses: a class of one whose slowest links bind. Its start and end then cost
 * no rating of the flows beside it, whose rates it cannot change (a 16,384-GPU step with every
 * replica simulated starts 2 M pipeline sends).
 *
 * <p>Started while its binding links carry nothing else and its other links keep spare capacity
 * with the class's load added, the class's rate is the max-min rate of each member: every member
 * has a saturated link on which no flow is faster (a binding link), and links that stay below
 * capacity limit nobody. {@link FlowNetwork} keeps that true while the class runs: a flow placed
 * on a binding link, a rating that saturates one of the other links, or a fault on any of its
 * links splits the class into its members before max-min fairness goes on.
 */
final class FlowClass {
    final Flow[] flows;
    final Route[] routes;
    /** Each member's position in its phase (its id is the phase's first id plus this). */
    final int[] index;
    /** The links the members cross, each once, and how many members cross each. */
    final int[] links;
    final int[] counts;
    /** Per link of {@link #links}: whether it is binding (only members cross it, at the class's rate). */
    final boolean[] binding;
    final double rate;
    final long bytes;
    /** The longest member route's latency: the phase hears of the class's members by then. */
    final long latency;
    /** Whether some link does not bind (the class shares it with other flows). */
    final boolean shares;

    private FlowClass(Flow[] flows, Route[] routes, int[] index, int[] links, int[] counts, boolean[] binding,
                      double rate) {
        this.flows = flows;
        this.routes = routes;
        this.index = index;
        this.links = links;
        this.counts = counts;
        this.binding = binding;
        this.rate = rate;
        this.bytes = flows[0].bytes();
        boolean any = false;
        for (boolean b : binding) {
            any |= !b;
        }
        this.shares = any;
        long longest = 0;
        for (Route r : routes) {
            longest = Math.max(longest, r.latencyNs());
        }
        this.latency = longest;
    }

    /** Per-link counters, zero between calls (sized by the topology's links). */
    static final class Scratch {
        final int[] phaseOn;
        final int[] classOn;
        /** Per link the phase crosses, its capacity over the phase's flows crossing it. */
        final double[] share;

        Scratch(int links) {
            phaseOn = new int[links];
            classOn = new int[links];
            share = new double[links];
        }
    }

    /**
     * Whether a phase has the shape classes need: at least one flow, none empty, none to its
     * own source.
     */
    static boolean shaped(List<Flow> flows) {
        if (flows.isEmpty()) {
            return false;
        }
        for (Flow f : flows) {
            if (f.bytes() <= 0 || f.srcDevice() == f.dstDevice()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The classes among a phase's flows on these routes: flows are grouped by size and by the
     * least share their links offer when the phase alone uses them (capacity over the phase's
     * flows crossing the link); a group (a lone flow included) whose every member crosses a binding
     * link is a class.
     *
     * @param flows    a phase {@link #shaped} for classes
     * @param routes   each flow's route (none empty)
     * @param capacity per link, its capacity in bytes per ns
     */
    static List<FlowClass> find(List<Flow> flows, Route[] routes, double[] capacity, Scratch s) {
        int n = flows.size();
        int[] on = s.phaseOn;
        IntList touched = new IntList();
        for (Route r : routes) {
            for (int id : r.sharedIds()) {
                if (on[id]++ == 0) {
                    touched.add(id);
                }
            }
        }
        double[] share = s.share;
        for (int i = 0; i < touched.size; i++) {
            int id = touched.a[i];
            share[id] = capacity[id] / on[id];
        }
        double[] shares = new double[4];
        long[] sizes = new long[4];
        int distinct = 0;
        int[] group = new int[n];
        int[] size = new int[4];
        for (int i = 0; i < n; i++) {
            double own = Double.MAX_VALUE;
            for (int id : routes[i].sharedIds()) {
                own = Math.min(own, share[id]);
            }
            long bytes = flows.get(i).bytes();
            int g = 0;
            while (g < distinct && (shares[g] != own || sizes[g] != bytes)) {
                g++;
            }
            if (g == distinct) {
                if (distinct == shares.length) {
                    shares = java.util.Arrays.copyOf(shares, distinct * 2);
                    sizes = java.util.Arrays.copyOf(sizes, distinct * 2);
                    size = java.util.Arrays.copyOf(size, distinct * 2);
                }
                shares[distinct] = own;
                sizes[distinct] = bytes;
                size[distinct++] = 0;
            }
            group[i] = g;
            size[g]++;
        }
        List<FlowClass> found = new ArrayList<>();
        for (int g = 0; g < distinct; g++) {
            if (size[g] >= 1 && shares[g] > 0 && shares[g] < Double.MAX_VALUE) {
                FlowClass c = of(flows, routes, group, g, size[g], shares[g], s);
                if (c != null) {
                    found.add(c);
                }
            }
        }
        for (int i = 0; i < touched.size; i++) {
            on[touched.a[i]] = 0;
        }
        return found;
    }

    /** Group {@code g} as a class, or null when a member crosses no binding link. */
    private static FlowClass of(List<Flow> flows, Route[] routes, int[] group, int g, int members, double rate,
                                Scratch s) {
        int[] on = s.phaseOn;
        int[] mine = s.classOn;
        Flow[] memberFlows = new Flow[members];
        Route[] memberRoutes = new Route[members];
        int[] index = new int[members];
        IntList unique = new IntList();
        for (int i = 0, k = 0; i < group.length; i++) {
            if (group[i] != g) {
                continue;
            }
            memberFlows[k] = flows.get(i);
            memberRoutes[k] = routes[i];
            index[k++] = i;
            for (int id : routes[i].sharedIds()) {
                if (mine[id]++ == 0) {
                    unique.add(id);
                }
            }
        }
        int[] links = java.util.Arrays.copyOf(unique.a, unique.size);
        int[] counts = new int[links.length];
        boolean[] binding = new boolean[links.length];
        for (int j = 0; j < links.length; j++) {
            int id = links[j];
            counts[j] = mine[id];
            binding[j] = mine[id] == on[id] && s.share[id] == rate;
            // from here on, the sign says whether the link binds
            mine[id] = binding[j] ? -1 : 1;
        }
        boolean everyBound = true;
        for (int k = 0; k < members; k++) {
            boolean bound = false;
            for (int id : memberRoutes[k].sharedIds()) {
                bound |= mine[id] < 0;
            }
            everyBound &= bound;
        }
        for (int id : links) {
            mine[id] = 0;
        }
        return everyBound ? new FlowClass(memberFlows, memberRoutes, index, links, counts, binding, rate) : null;
    }
}
