package org.clustersim.core.network;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Incremental max-min: when flows start, finish, or a link changes state, only the flows the
 * change can reach are re-rated. The search spreads from the change through <em>tight</em>
 * links (saturated in the current allocation, or carrying a few flows), never through a link
 * with spare capacity, since no flow's rate is limited by such a link. The flows reached are
 * rated by the {@link MaxMinSolver} with the links they reach but did not cross into keeping
 * the capacity the other flows leave; if that saturates one of those links, the search crosses
 * it too and the rating is repeated. The result is the max-min allocation of all flows (it is
 * unique, and every flow keeps a saturated bottleneck link on which it is largest), found from a
 * few hundred flows where a whole fabric's component holds thousands.
 *
 * <p>A flow class is exact only while the links it shares keep capacity to spare: a rating that
 * saturates such a link has the classes on it split into their members, which join the rating.
 * This finds the flows and their rates; {@link FlowNetwork} applies them.
 */
final class Rerating {
    /**
     * A link counts as saturated within this fraction of its capacity. Erring towards "tight"
     * only widens a re-rating; a true bottleneck carries its capacity to rounding (1e-15).
     */
    static final double TIGHT = 1e-7;

    /** Splits every class crossing a link, binding or not; the members, placed, join {@code joined}. */
    interface ClassSplit {
        void splitAllOn(int link, long now, List<ActiveFlow> joined);
    }

    private final LinkSlots<ActiveFlow> onLink;
    private final LinkRates rates;
    private final ClassLinks classes;
    private final MaxMinSolver solver;
    private final ClassSplit split;
    private final FlowStats stats;
    /** Links carrying at most this many flows are always crossed. */
    private final int fewFlows;
    private long passes;
    /** Per link, the pass that last crossed it (no mark set to clear per pass). */
    private final long[] linkSeenIn;
    /** Per link, the pass that last found it at the edge of the flows re-rated. */
    private final long[] linkEdgeIn;
    /** Per link, its index inside the component being rated. */
    private final int[] componentIndex;
    private final List<ActiveFlow> component = new ArrayList<>();
    private final IntList crossed = new IntList();
    private final IntList edge = new IntList();
    private final IntList rated = new IntList();
    /** Members of classes split during a rating (reused). */
    private final List<ActiveFlow> splitMembers = new ArrayList<>();
    private final Problem problem = new Problem();

    /**
     * @param onLink   per link, the flows crossing it
     * @param fewFlows links with at most this many flows are crossed by every re-rating that
     *                 reaches them: cheaper than a second rating
     */
    Rerating(int links, LinkSlots<ActiveFlow> onLink, LinkRates rates, ClassLinks classes, MaxMinSolver solver,
             ClassSplit split, FlowStats stats, int fewFlows) {
        this.onLink = onLink;
        this.rates = rates;
        this.classes = classes;
        this.solver = solver;
        this.split = split;
        this.stats = stats;
        this.fewFlows = fewFlows;
        linkSeenIn = new long[links];
        Arrays.fill(linkSeenIn, -1);
        linkEdgeIn = new long[links];
        Arrays.fill(linkEdgeIn, -1);
        componentIndex = new int[links];
    }

    /** Whether a link limits some flow now: saturated (within {@link #TIGHT}), or so lightly used that crossing it is cheap. */
    boolean tight(int id) {
        return onLink.count(id) <= fewFlows || rates.rate(id) >= rates.capacity(id) * (1 - TIGHT);
    }

    /**
     * The new rates, bytes per ns, of the flows that {@code seeds} and the flows on
     * {@code seedLinks} reach through tight links (the seed links are crossed whatever their load:
     * they changed), in the order of {@link #component()}; null when no flow is to be rated.
     * Finishing flows hand over their tight links rather than their neighbours: a spine link
     * carries hundreds of flows, and listing them once per finishing flow cost more than the
     * rating. The array is the solver's, valid until the next rating.
     */
    double[] rate(List<ActiveFlow> seeds, IntList seedLinks, long now) {
        long pass = ++passes;
        List<ActiveFlow> flows = component;
        flows.clear();
        crossed.clear();
        edge.clear();
        for (int i = 0; i < seedLinks.size(); i++) {
            cross(seedLinks.get(i), pass);
        }
        for (ActiveFlow s : seeds) {
            if (!s.done && s.seenIn != pass) {
                s.seenIn = pass;
                flows.add(s);
            }
        }
        if (flows.isEmpty()) {
            return null;
        }
        int spread = 0;
        double[] newRate;
        while (true) {
            for (; spread < flows.size(); spread++) {
                for (int id : flows.get(spread).links) {
                    if (linkSeenIn[id] == pass) {
                        continue;
                    }
                    if (tight(id)) {
                        cross(id, pass);
                    } else if (linkEdgeIn[id] != pass) {
                        linkEdgeIn[id] = pass;
                        edge.add(id);
                    }
                }
            }
            rated.clear();
            rated.addAll(crossed);
            for (int i = 0; i < edge.size(); i++) {
                int id = edge.get(i);
                if (linkSeenIn[id] != pass) {
                    rated.add(id);
                }
            }
            newRate = maxMin(flows, rated, crossed.size());
            int before = flows.size();
            for (int i = crossed.size(), n = rated.size(); i < n; i++) {
                if (saturated(i)) {
                    cross(rated.get(i), pass);
                }
            }
            if (classes.anySharing()) {
                splitOnSaturated(flows, now, pass);
            }
            // a saturated link whose flows were all rated already offered its whole capacity:
            // crossing it changes nothing, so only new flows call for another rating
            if (flows.size() == before) {
                return newRate;
            }
        }
    }

    /** The flows the last {@link #rate} rated, in the order of its rates. */
    List<ActiveFlow> component() {
        return component;
    }

    /**
     * Each rated link that the last rating saturated splits the classes sharing it, and their
     * members join the rating ({@code flows}).
     */
    private void splitOnSaturated(List<ActiveFlow> flows, long now, long pass) {
        for (int i = 0, n = rated.size(); i < n; i++) {
            int id = rated.get(i);
            if (classes.sharedCount(id) > 0 && saturated(i)) {
                stats.classesSplitBySaturation += classes.sharedCount(id);
                splitMembers.clear();
                split.splitAllOn(id, now, splitMembers);
                for (ActiveFlow m : splitMembers) {
                    m.seenIn = pass;
                    flows.add(m);
                }
            }
        }
        splitMembers.clear();
    }

    /** Crosses link {@code id} in this pass: its flows not reached yet join the re-rating. */
    private void cross(int id, long pass) {
        if (linkSeenIn[id] == pass) {
            return;
        }
        linkSeenIn[id] = pass;
        crossed.add(id);
        for (int i = 0, n = onLink.count(id); i < n; i++) {
            ActiveFlow b = onLink.at(id, i);
            if (!b.done && b.seenIn != pass) {
                b.seenIn = pass;
                component.add(b);
            }
        }
    }

    /**
     * Max-min fair rates (bytes per ns) of {@code flows} over {@code links}, by the solver: the
     * first {@code crossedLinks} links carry only these flows and offer their whole capacity (but
     * for the classes sharing them); the others offer what the flows outside the rating leave
     * (their rates stay as they are).
     */
    private double[] maxMin(List<ActiveFlow> flows, IntList links, int crossedLinks) {
        int nl = links.size();
        int nf = flows.size();
        Problem m = problem.sized(nl, nf);
        int[] index = componentIndex;
        for (int i = 0; i < nl; i++) {
            index[links.get(i)] = i;
            m.full[i] = rates.capacity(links.get(i));
            m.inside[i] = 0;
        }
        int hops = 0;
        for (int f = 0; f < nf; f++) {
            hops += flows.get(f).links.length;
        }
        m.hops(hops);
        int k0 = 0;
        for (int f = 0; f < nf; f++) {
            ActiveFlow a = flows.get(f);
            m.hopStart[f] = k0;
            for (int id : a.links) {
                int li = index[id];
                m.hopLink[k0++] = li;
                m.inside[li] += a.rate;
            }
        }
        m.hopStart[nf] = k0;
        for (int i = 0; i < nl; i++) {
            int id = links.get(i);
            m.offered[i] = i < crossedLinks ? Math.max(0, m.full[i] - classes.rate(id))
                    : Math.max(0, m.full[i] - (rates.rate(id) - m.inside[i]));
        }
        return solver.solve(nl, m.offered, nf, m.hopStart, m.hopLink);
    }

    /** Whether link {@code li} of the last rating ended with no capacity to spare (within {@link #TIGHT}). */
    private boolean saturated(int li) {
        return solver.leftover(li) <= problem.full[li] * TIGHT;
    }

    /** The arrays a rating hands the solver, reused: per link of the component, per flow, per (flow, link) hop. */
    private static final class Problem {
        double[] full = new double[0];
        /** Per link, the rate the flows being rated had on it. */
        double[] inside = new double[0];
        double[] offered = new double[0];
        int[] hopStart = new int[1];
        int[] hopLink = new int[0];

        Problem sized(int links, int flows) {
            if (full.length < links) {
                int n = Math.max(links, full.length * 2);
                full = new double[n];
                inside = new double[n];
                offered = new double[n];
            }
            if (hopStart.length < flows + 1) {
                hopStart = new int[Math.max(flows, hopStart.length * 2) + 1];
            }
            return this;
        }

        void hops(int hops) {
            if (hopLink.length < hops) {
                hopLink = new int[Math.max(hops, hopLink.length * 2)];
            }
        }
    }
}
