package org.clustersim.core.network;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.kernel.SimKernel;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Route;
import org.clustersim.topology.Topology;

/**
 * The {@code flow} fidelity: every flow is a fluid stream over the links of its route, and
 * link capacity is shared among the flows crossing it by max-min fairness. A flow arrives when
 * its last byte has drained plus its route's latency.
 *
 * <p>This class starts and finishes flows and classes and applies new rates; it composes the
 * parts that do the rest. {@link RouteMemo} gives each flow its route (memoised per phase,
 * adaptive choices kept by the loads they read) and finds the phase's flow classes;
 * {@link FlowPlacement} keeps which flows and classes sit on each link ({@link ClassLinks}) and
 * splits classes into their members; {@link Rerating} finds the flows a change can reach and
 * has the {@link MaxMinSolver} ({@link ProgressiveFilling}) rate them; {@link LinkRates} keeps
 * each link's capacity and rate and feeds its statistics ({@link LinkUsage}); {@link FinishTimer}
 * holds the finish times behind one kernel event; {@link FlowStats} counts the work. Remaining
 * bytes are settled at the old rates before a rate changes.
 *
 * <p>Flows of a phase that max-min fairness gives one rate - a ring inside an NVSwitch domain,
 * a stage of a rail-aligned all-to-all, a torus ring, the network part of a direct all-to-all -
 * start as one weighted flow class ({@link FlowClass}) while their binding links carry nothing
 * else and the links they share with other flows keep capacity to spare; the class is split
 * into its members the moment a flow joins a binding link, a rating saturates a shared link, or
 * a fault touches one: a 16,384-GPU step starts 17 M flows, 16 M of them such ring steps.
 */
public final class FlowNetwork implements FabricNetwork {
    private static final double EPSILON_BYTES = 1e-6;
    /** Links carrying at most this many flows are always crossed: cheaper than a second rating. */
    static final int FEW_FLOWS = 4;
    private static final IntList NO_LINKS = new IntList();

    private final SimKernel kernel;
    private final LinkStates states;
    private final LinkUsage usage;
    private final FlowStats stats = new FlowStats();
    /** Per link, the flows crossing it (kept by {@link FlowPlacement}; classes check them before starting). */
    private final LinkSlots<ActiveFlow> onLink;
    private final LinkRates rates;
    private final ClassLinks classLinks;
    private final RouteMemo routes;
    private final Rerating rating;
    private final FinishTimer timer;
    private final FlowPlacement placement;
    /** Per link, the timer pass that last listed it among the links freed by finishing flows. */
    private final long[] linkFreedIn;
    private long timerPasses;
    private final IntList freed = new IntList();
    /** The flows a transfer starts (reused: transfers do not nest). */
    private final List<ActiveFlow> started = new ArrayList<>();
    private long nextId;
    private final boolean classes;

    /** With static ECMP routing. */
    public FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters) {
        this(topology, kernel, states, counters, false);
    }

    /**
     * @param adaptive route each flow, when it starts, through the equal-cost next hop whose way on
     *                 to the destination leaf has the least-loaded busiest link (flows counted per
     *                 link; adaptive routing) instead of by a static hash
     */
    public FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters, boolean adaptive) {
        this(topology, kernel, states, counters, adaptive, FEW_FLOWS, true);
    }

    /**
     * @param fewFlows links with at most this many flows are crossed by every re-rating that reaches them (tests vary it)
     * @param classes  whether flows max-min fairness gives one rate may run as flow classes ({@link FlowClass}; tests compare without)
     */
    FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters, boolean adaptive,
                int fewFlows, boolean classes) {
        this.classes = classes;
        this.kernel = kernel;
        this.states = states;
        this.usage = new LinkUsage(topology, counters);
        int n = topology.links().size();
        onLink = new LinkSlots<>(n, 4, a -> a.slot);
        rates = new LinkRates(topology, states, usage);
        classLinks = new ClassLinks(n);
        int[] load = new int[n];
        routes = new RouteMemo(topology, states, load, adaptive, rates.nominal(), stats);
        timer = new FinishTimer(kernel, this::finishDue);
        placement = new FlowPlacement(states, onLink, classLinks, load, timer, stats, rates);
        rating = new Rerating(n, onLink, rates, classLinks, new ProgressiveFilling(), placement::splitAllOn, stats,
                fewFlows);
        linkFreedIn = new long[n];
        java.util.Arrays.fill(linkFreedIn, -1);
    }

    @Override
    public void transfer(String owner, Phase phase, Runnable onDone) {
        long now = kernel.now();
        List<Flow> flows = phase.flows();
        PhaseRun run = new PhaseRun(kernel, flows.size(), onDone, phase.extraLatencyNs(), now);
        RouteMemo.PhaseRoutes known = routes.of(phase);
        if (classes && known != null && known.mayFormClasses()) {
            transferWithClasses(known, flows, owner, run, now);
            return;
        }
        List<ActiveFlow> started = this.started;
        started.clear();
        for (int i = 0, n = flows.size(); i < n; i++) {
            Flow f = flows.get(i);
            if (f.srcDevice() == f.dstDevice()) {
                run.arrived(now);
                continue;
            }
            Route route = routes.route(known, i, f, owner);
            if (f.bytes() == 0) {
                run.arrived(now + placement.latencyOf(route.links()));
                continue;
            }
            startFlow(new ActiveFlow(nextId++, f, owner, run, f.bytes(), now), route, false);
        }
        if (known != null) {
            routes.check(known, flows);
        }
        if (!started.isEmpty()) {
            rerate(started, NO_LINKS, now);
        }
    }

    /**
     * Places a flow on its route and counts its bytes on every link; it is rated with the others started.
     *
     * @param counted whether the flow is already counted in the links' load (routed by {@link RouteMemo#choose})
     */
    private void startFlow(ActiveFlow a, Route route, boolean counted) {
        placement.place(a, route, counted);
        long bytes = a.spec.bytes();
        for (int id : a.links) {
            usage.carried(id, bytes);
        }
        started.add(a);
    }

    /**
     * Starts a phase shaped for classes: routes every flow (adaptive choices see the flows routed
     * before them, as if placed), starts each class that may run as one, and places the rest.
     */
    private void transferWithClasses(RouteMemo.PhaseRoutes known, List<Flow> flows, String owner, PhaseRun run,
                                     long now) {
        int n = flows.size();
        routes.choose(known, flows, owner);
        Route[] chosen = routes.routes();
        // routes chosen now are counted in the links' loads already
        boolean counted = known.perStart;
        long base = nextId;
        nextId += n;
        boolean[] inClass = null;
        int members = 0;
        for (FlowClass c : routes.classes()) {
            if (classLinks.mayStart(c, onLink, rates)) {
                startClass(c, base, owner, run, now, counted);
                members += c.flows.length;
                if (members == n) {
                    // one class for the whole phase (a ring step): nothing is left to place
                    return;
                }
                if (inClass == null) {
                    inClass = new boolean[n];
                }
                for (int i : c.index) {
                    inClass[i] = true;
                }
            }
        }
        started.clear();
        for (int i = 0; i < n; i++) {
            if (inClass == null || !inClass[i]) {
                Flow f = flows.get(i);
                startFlow(new ActiveFlow(base + i, f, owner, run, f.bytes(), now), chosen[i], counted);
            }
        }
        if (!started.isEmpty()) {
            rerate(started, NO_LINKS, now);
        } else {
            timer.arm();
        }
    }

    /** Starts a class at its rate: nothing already running changes (see {@link FlowClass}). */
    private void startClass(FlowClass sym, long base, String owner, PhaseRun run, long now, boolean counted) {
        ActiveFlow c = new ActiveFlow(base + sym.index[0], sym.flows[0], owner, run, sym.bytes, now);
        stats.classesStarted++;
        c.members = sym;
        c.memberBase = base;
        c.links = sym.links;
        c.rate = sym.rate;
        placement.placeClass(c, counted);
        boolean off = rates.bindingOffTotals();
        if (off) {
            c.bindingSince = now;
        }
        for (int j = 0; j < sym.links.length; j++) {
            int id = sym.links[j];
            int count = sym.counts[j];
            if (!off || !sym.binding[j]) {
                rates.add(id, count * sym.rate, now);
            }
            usage.carried(id, sym.bytes * count);
        }
        stats.rerates++;
        stats.flowsRerated += sym.flows.length;
        c.finishAt = now + (long) Math.ceil(c.remaining / sym.rate);
        timer.update(c);
        timer.arm();
    }

    /**
     * Changes a link's state now (a fault): flows crossing a link that goes down are re-routed
     * with their remaining bytes, and every affected component is re-rated.
     *
     * @throws UnreachableException if a re-routed flow can no longer reach its destination
     */
    @Override
    public void setLinkState(Link link, double capacityFactor, long extraLatencyNs) {
        long now = kernel.now();
        placement.splitAllOn(link.id(), now, null);
        states.setFactor(link.id(), capacityFactor);
        states.setExtraLatencyNs(link.id(), extraLatencyNs);
        List<ActiveFlow> affected = new ArrayList<>(placement.flowsOn(link.id()));
        IntList changed = new IntList();
        changed.add(link.id());
        if (capacityFactor == 0) {
            for (ActiveFlow a : affected) {
                a.settle(now);
                clearRate(a, now);
                for (int id : a.links) {
                    changed.add(id);
                }
                placement.unplace(a);
                placement.place(a, routes.now(a.spec, a.owner), false);
            }
        }
        rerate(affected, changed, now);
    }

    /** Removes a flow's rate from its links' totals before it leaves them. */
    private void clearRate(ActiveFlow a, long now) {
        if (a.rate > 0) {
            for (int id : a.links) {
                rates.add(id, -a.rate, now);
            }
            a.rate = 0;
        }
    }

    /**
     * Re-rates, at time {@code now}, what the new or re-routed flows {@code seeds} and the flows
     * on {@code seedLinks} can reach ({@link Rerating}): settles each at its old rate, moves the
     * links' totals to the new rates and its finish time to match.
     */
    private void rerate(List<ActiveFlow> seeds, IntList seedLinks, long now) {
        stats.rerates++;
        double[] newRate = rating.rate(seeds, seedLinks, now);
        if (newRate == null) {
            timer.arm();
            return;
        }
        List<ActiveFlow> flows = rating.component();
        stats.flowsRerated += flows.size();
        for (int i = 0; i < flows.size(); i++) {
            ActiveFlow a = flows.get(i);
            a.settle(now);
            double r = newRate[i];
            if (r != a.rate) {
                for (int id : a.links) {
                    rates.add(id, r - a.rate, now);
                }
                a.rate = r;
            }
            long finish = r > 0 ? now + (long) Math.ceil(a.remaining / r) : Long.MAX_VALUE;
            if (finish != a.finishAt) {
                a.finishAt = finish;
                timer.update(a);
            }
        }
        timer.arm();
    }

    /** Finishes every flow whose last byte has drained by now, then re-rates what they leave behind. */
    private void finishDue(long now) {
        long timerPass = ++timerPasses;
        freed.clear();
        while (timer.firstTime() <= now) {
            for (int i = 0, n = timer.takeFirst(); i < n; i++) {
                complete(timer.due(i), now, timerPass);
            }
        }
        if (!freed.isEmpty()) {
            rerate(List.of(), freed, now);
        } else {
            timer.arm();
        }
    }

    /** Finishes a flow due now, or (rounding left a sliver) queues it for the next nanosecond. */
    private void complete(ActiveFlow a, long now, long timerPass) {
        a.settle(now);
        if (a.remaining > EPSILON_BYTES * Math.max(1, a.spec.bytes())) {
            a.finishAt = now + 1;
            timer.update(a);
            return;
        }
        a.finishAt = Long.MAX_VALUE;
        if (a.members != null) {
            // its binding links carry nothing else and the links it shares have capacity to
            // spare, which limits nobody: no one is left to re-rate
            a.done = true;
            FlowClass sym = a.members;
            for (int j = 0; j < sym.links.length; j++) {
                if (a.bindingSince >= 0 && sym.binding[j]) {
                    rates.busyAlone(sym.links[j], a.bindingSince, now);
                } else {
                    rates.add(sym.links[j], -sym.counts[j] * a.rate, now);
                }
            }
            placement.unplaceClass(a);
            a.phase.arrived(now + sym.latency, sym.flows.length);
            return;
        }
        for (int id : a.links) {
            // flows finishing together share links: list each once
            if (linkFreedIn[id] != timerPass && rating.tight(id)) {
                linkFreedIn[id] = timerPass;
                freed.add(id);
            }
        }
        a.done = true;
        clearRate(a, now);
        placement.unplace(a);
        a.phase.arrived(now + a.latency);
    }

    @Override
    public LinkUsage usage() {
        return usage;
    }

    /** How many phases ran as a flow class ({@link FlowClass}), split later or not. */
    public long classesStarted() {
        return stats.classesStarted;
    }

    /** How many starts took an earlier start's adaptive routes, finding the loads they read unchanged ({@link ChosenRoutes}). */
    public long routeChoicesReused() {
        return stats.routeChoicesReused;
    }

    /** How many classes were split into their members, for any reason. */
    public long classesSplit() {
        return stats.classesSplit;
    }

    /** How many classes a rating split because it saturated a link they shared. */
    public long classesSplitBySaturation() {
        return stats.classesSplitBySaturation;
    }

    /** How many times components were re-rated. */
    public long rerates() {
        return stats.rerates;
    }

    /** Flows re-rated, summed over all re-ratings. */
    public long flowsRerated() {
        return stats.flowsRerated;
    }

    /** Current total rate on a link, bytes per ns, a class's kept off its binding links included. */
    double linkRate(int linkId) {
        ActiveFlow c = classLinks.bindingOn(linkId);
        if (c != null && c.bindingSince >= 0) {
            FlowClass sym = c.members;
            for (int j = 0; j < sym.links.length; j++) {
                if (sym.links[j] == linkId) {
                    return rates.rate(linkId) + sym.counts[j] * sym.rate;
                }
            }
        }
        return rates.rate(linkId);
    }
}
