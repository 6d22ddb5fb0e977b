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
 * link capacity is shared among the flows crossing it by max-min fairness (progressive
 * filling: raise every flow's rate together until a link saturates, freeze the flows through
 * it, continue with the rest). A flow arrives when its last byte has drained plus its route's
 * latency.
 *
 * <p>When flows start, finish, or a link changes state, only flows the change can reach are
 * re-rated (incremental max-min): the search spreads from the change through <em>tight</em>
 * links (saturated in the current allocation, or carrying a few flows), never through a link
 * with spare capacity, since no flow's rate is limited by such a link. The flows reached are
 * re-rated by progressive filling in which the links they reach but did not cross into keep
 * the capacity the other flows leave; if that saturates one of those links, the search
 * crosses it too and the rating is repeated. The result is the max-min allocation of all
 * flows (it is unique, and every flow keeps a saturated bottleneck link on which it is
 * largest), found from a few hundred flows where a whole fabric's component holds thousands.
 * Remaining bytes are settled at the old rates first. Finish times live in the network's own
 * {@link FinishQueue} (flows grouped by finish time), and the kernel holds one timer event for
 * the earliest of them, so the number of kernel events grows with flows and rate changes, never
 * with bytes.
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
    /**
     * A link counts as saturated within this fraction of its capacity. Erring towards "tight"
     * only widens a re-rating; a true bottleneck carries its capacity to rounding (1e-15).
     */
    private static final double TIGHT = 1e-7;
    /** Links carrying at most this many flows are always crossed: cheaper than a second rating. */
    static final int FEW_FLOWS = 4;
    /**
     * A class starts only if each link it shares keeps this fraction of its capacity spare with
     * the class's load added (wider than {@link #TIGHT}, so a link a class shares is never tight by
     * load when the class starts).
     */
    private static final double SPARE = 1e-6;

    private final Topology topology;
    private final SimKernel kernel;
    private final LinkStates states;
    private final LinkUsage usage;
    /** Per link, the flows crossing it; each flow knows its slot per hop ({@link ActiveFlow#slot}). */
    private final LinkSlots<ActiveFlow> onLink;
    private final double[] linkRate;
    /** Scratch for {@link #maxMin}: a link's index inside the component being rated. */
    private final int[] componentIndex;
    private final RatingProblem problem = new RatingProblem();
    private final MaxMinSolver solver = new ProgressiveFilling();
    /** Per link, the re-rating pass that last crossed it (no mark set to clear per pass). */
    private final long[] linkSeenIn;
    /** Per link, the re-rating pass that last found it at the edge of the flows re-rated. */
    private final long[] linkEdgeIn;
    private final List<ActiveFlow> component = new ArrayList<>();
    private final IntList crossed = new IntList();
    private final IntList edge = new IntList();
    private final IntList rated = new IntList();
    /** Links by id, and their nominal capacities in bytes per ns: the hot loops work on ids. */
    private final Link[] linkOf;
    private final double[] nominal;
    /** Per link, the timer pass that last listed it among the links freed by finishing flows. */
    private final long[] linkFreedIn;
    private long timerPasses;
    private final IntList freed = new IntList();
    /** Members of classes split during a rating (reused). */
    private final List<ActiveFlow> splitMembers = new ArrayList<>();
    /** The flows a transfer starts (reused: transfers do not nest). */
    private final List<ActiveFlow> started = new ArrayList<>();
    /**
     * Per phase started while every link is healthy, its flows' routes where they cannot depend
     * on load (or {@link #CHOSEN_PER_START}): plans are shared by every layer and microbatch, so a
     * route is looked up once per plan rather than once per flow started. Keyed by identity.
     */
    private final java.util.Map<Phase, PhaseRoutes> healthyRoutes = new java.util.IdentityHashMap<>();
    /** Per link, the flow class for which it is binding ({@link FlowClass}): nothing else may cross it. */
    private final ActiveFlow[] bindingClass;
    /**
     * Per link, the flow classes crossing it without binding; each knows its slot per link of
     * {@link FlowClass#links} ({@link ActiveFlow#sharedSlot}).
     */
    private final LinkSlots<ActiveFlow> sharedOn;
    /** Per link, the total rate of the running classes crossing it without binding. */
    private final double[] classRate;
    /** Running classes that share some link (zero: a rating has no shared link to check). */
    private int sharingClasses;
    /**
     * Per link, what adaptive routing counts as its load: flows on it, members of classes
     * crossing it, and flows of the phase being started that are routed but not placed yet.
     */
    private final int[] load;
    private final FlowClass.Scratch classScratch;

    /** A phase's memoised routes and, once checked, the classes among its flows. */
    private static final class PhaseRoutes {
        final Route[] routes;
        boolean checked;
        /** Whether the phase has the shape classes need ({@link FlowClass#shaped}). */
        boolean shaped;
        /** Whether some route is chosen at every start (then so are the classes). */
        boolean perStart;
        /** With fixed routes, the phase's classes (empty: none). */
        List<FlowClass> classes = List.of();
        /** With routes chosen at every start: the choices made so far, by the loads they read. */
        ChosenRoutes chosen;

        PhaseRoutes(int flows) {
            routes = new Route[flows];
        }
    }
    private final long[] linkBusySince;
    private final FinishQueue<ActiveFlow> finishing = new FinishQueue<>();
    private long timerAt = Long.MAX_VALUE;
    private long nextId;
    private long rerates;
    private long flowsRerated;
    private final org.clustersim.topology.Router.LinkLoad linkLoad;
    private final int fewFlows;
    private final boolean classes;
    /** Whether link throughput tracks are kept (read once: every rate change asks). */
    private final boolean tracksRates;
    private long classesStarted;
    private long classesSplitBySaturation;
    private long routeChoicesReused;

    /** With static ECMP routing. */
    public FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters) {
        this(topology, kernel, states, counters, false);
    }

    /**
     * @param adaptive route each flow, when it starts, over the equal-cost next hops carrying the
     *                 fewest flows (adaptive routing) instead of by a static hash
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
        this.fewFlows = fewFlows;
        this.classes = classes;
        this.topology = topology;
        this.kernel = kernel;
        this.states = states;
        this.usage = new LinkUsage(topology, counters);
        this.tracksRates = usage.tracksRates();
        int n = topology.links().size();
        onLink = new LinkSlots<>(n, 4, a -> a.slot);
        linkRate = new double[n];
        componentIndex = new int[n];
        linkSeenIn = new long[n];
        java.util.Arrays.fill(linkSeenIn, -1);
        linkEdgeIn = new long[n];
        java.util.Arrays.fill(linkEdgeIn, -1);
        linkBusySince = new long[n];
        linkOf = topology.links().toArray(new Link[0]);
        nominal = new double[n];
        for (int i = 0; i < n; i++) {
            nominal[i] = linkOf[i].bandwidthBytesPerS() / 1e9;
        }
        linkFreedIn = new long[n];
        java.util.Arrays.fill(linkFreedIn, -1);
        bindingClass = new ActiveFlow[n];
        sharedOn = new LinkSlots<>(n, 2, c -> c.sharedSlot);
        classRate = new double[n];
        load = new int[n];
        this.linkLoad = adaptive ? new org.clustersim.topology.Router.LinkLoad(load) : null;
        classScratch = new FlowClass.Scratch(n);
    }

    /** One phase in progress: it completes when its last flow has arrived. */
    private final class PhaseRun {
        final Runnable onDone;
        final long extraLatency;
        int pending;
        long lastArrival;

        PhaseRun(int flows, Runnable onDone, long extraLatency, long now) {
            this.pending = flows;
            this.onDone = onDone;
            this.extraLatency = extraLatency;
            this.lastArrival = now;
        }

        void arrived(long at) {
            arrived(at, 1);
        }

        /** Several flows, the last of them arriving at {@code at}. */
        void arrived(long at, int flows) {
            lastArrival = Math.max(lastArrival, at);
            pending -= flows;
            if (pending == 0) {
                kernel.schedule(lastArrival + extraLatency, onDone);
            }
        }
    }

    /** A flow with bytes left to drain. */
    private static final class ActiveFlow extends FinishQueue.Entry {
        final Flow spec;
        final String owner;
        final PhaseRun phase;
        /** Link ids of the route, shared with the route: never written. */
        int[] links;
        /** Per hop, this flow's slot in its link's flow array. */
        int[] slot;
        long latency;
        double remaining;
        double rate;
        long updatedAt;
        /** The re-rating pass that last reached this flow (replaces a visited set). */
        long seenIn = -1;
        boolean done;
        /**
         * Non-null for a class standing for several flows of one phase ({@link FlowClass}): then
         * {@link #links} holds the links its members cross, each once ({@link FlowClass#links}), and
         * the class's id is its first member's.
         */
        FlowClass members;
        /** For a class, the id of its phase's first flow (a member's id adds its index). */
        long memberBase;
        /** For a class, per link of {@link FlowClass#links} it crosses without binding, its slot there. */
        int[] sharedSlot;

        ActiveFlow(long id, Flow spec, String owner, PhaseRun phase, double bytes, long now) {
            super(id);
            this.spec = spec;
            this.owner = owner;
            this.phase = phase;
            this.remaining = bytes;
            this.updatedAt = now;
        }
    }

    @Override
    public void transfer(String owner, Phase phase, Runnable onDone) {
        long now = kernel.now();
        List<Flow> flows = phase.flows();
        PhaseRun run = new PhaseRun(flows.size(), onDone, phase.extraLatencyNs(), now);
        PhaseRoutes known = states.version() == 0
                ? healthyRoutes.computeIfAbsent(phase, p -> new PhaseRoutes(p.flows().size())) : null;
        if (classes && known != null && known.shaped && (known.perStart || !known.classes.isEmpty())) {
            transferWithClasses(known, flows, owner, run, now);
            return;
        }
        List<ActiveFlow> started = this.started;
        started.clear();
        Route[] memo = known == null ? null : known.routes;
        for (int i = 0, n = flows.size(); i < n; i++) {
            Flow f = flows.get(i);
            if (f.srcDevice() == f.dstDevice()) {
                run.arrived(now);
                continue;
            }
            Route route = memo == null ? null : memo[i];
            if (route == null || route == CHOSEN_PER_START) {
                route = Routes.of(topology, f, states, owner, linkLoad);
                if (memo != null && memo[i] == null) {
                    boolean fixed = linkLoad == null
                            || topology.router().adaptiveIsStatic(f.srcDevice(), f.dstDevice(), f.channel(), states);
                    memo[i] = fixed ? route : CHOSEN_PER_START;
                }
            }
            if (f.bytes() == 0) {
                run.arrived(now + latencyOf(route.links()));
                continue;
            }
            startFlow(new ActiveFlow(nextId++, f, owner, run, f.bytes(), now), route, false);
        }
        if (known != null && !known.checked) {
            known.checked = true;
            known.shaped = FlowClass.shaped(flows);
            for (Route r : known.routes) {
                known.perStart |= r == CHOSEN_PER_START;
                known.shaped &= r == CHOSEN_PER_START || r != null && r.hops() > 0;
            }
            if (known.shaped && !known.perStart) {
                known.classes = FlowClass.find(flows, known.routes, nominal, classScratch);
            }
        }
        if (!started.isEmpty()) {
            rerate(started, now);
        }
    }

    /**
     * Places a flow on its route and counts its bytes on every link; it is rated with the others started.
     *
     * @param counted whether the flow is already counted in {@link #load} (routed by {@link #routeEach})
     */
    private void startFlow(ActiveFlow a, Route route, boolean counted) {
        place(a, route, counted);
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
    private void transferWithClasses(PhaseRoutes known, List<Flow> flows, String owner, PhaseRun run, long now) {
        int n = flows.size();
        Route[] routes = known.routes;
        List<FlowClass> found = known.classes;
        if (known.perStart) {
            if (known.chosen == null) {
                // at the second start: most phases that route per start start once (a bucket's
                // ring), and they need not pay for naming the links their choices read
                known.chosen = new ChosenRoutes(adaptiveReads(flows, known.routes));
            }
            ChosenRoutes chosen = known.chosen;
            java.nio.IntBuffer loads = chosen.loads(load);
            ChosenRoutes.Choice earlier = chosen.find(loads);
            if (earlier != null) {
                // the loads the choices read are as an earlier start found them: so are the routes
                routeChoicesReused++;
                routes = earlier.routes();
                found = earlier.classes();
                earlier.count(load);
            } else {
                routes = routeEach(flows, known.routes, owner);
                // the same links as at the last start make the same classes: comparing routes
                // is cheaper than grouping again
                found = chosen.share(routes) ? chosen.lastClasses()
                        : FlowClass.find(flows, routes, nominal, classScratch);
                chosen.remember(loads, routes, found, classScratch.phaseOn);
            }
        }
        // routes chosen now are counted in the links' loads already
        boolean counted = known.perStart;
        long base = nextId;
        nextId += n;
        boolean[] inClass = null;
        int members = 0;
        for (FlowClass c : found) {
            if (mayStart(c)) {
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
                startFlow(new ActiveFlow(base + i, f, owner, run, f.bytes(), now), routes[i], counted);
            }
        }
        if (!started.isEmpty()) {
            rerate(started, now);
        } else {
            armTimer();
        }
    }

    /**
     * The union of the links the adaptive choices of a phase's flows read, sorted by id, or null
     * when the router cannot bound some flow's.
     */
    private int[] adaptiveReads(List<Flow> flows, Route[] memo) {
        java.util.BitSet union = new java.util.BitSet(load.length);
        int asked = 0;
        for (int i = 0; i < memo.length; i++) {
            if (memo[i] != CHOSEN_PER_START) {
                continue;
            }
            Flow f = flows.get(i);
            int[] reads = topology.router().adaptiveReads(f.srcDevice(), f.dstDevice(), f.channel(), states);
            if (reads == null) {
                return null;
            }
            for (int id : reads) {
                union.set(id);
            }
            if (++asked % 64 == 0 && union.cardinality() > MAX_READS) {
                return null;
            }
        }
        return union.cardinality() > MAX_READS ? null : union.stream().toArray();
    }

    /**
     * Every flow's route, memoised or chosen now, each counted in {@link #load} at once: an
     * adaptive choice sees the flows routed before it as if placed, and they are placed (or start
     * as classes) without counting them again.
     */
    private Route[] routeEach(List<Flow> flows, Route[] memo, String owner) {
        int n = flows.size();
        Route[] routes = new Route[n];
        for (int i = 0; i < n; i++) {
            Route r = memo[i];
            if (r == CHOSEN_PER_START) {
                r = Routes.of(topology, flows.get(i), states, owner, linkLoad);
            }
            routes[i] = r;
            for (int id : r.sharedIds()) {
                load[id]++;
            }
        }
        return routes;
    }

    /**
     * Whether a class may start now: its binding links carry nothing, none of its links binds
     * another class, and its other links keep spare capacity with its load added.
     */
    private boolean mayStart(FlowClass c) {
        for (int j = 0; j < c.links.length; j++) {
            int id = c.links[j];
            if (bindingClass[id] != null) {
                return false;
            }
            if (c.binding[j]) {
                if (onLink.count(id) != 0 || sharedOn.count(id) != 0) {
                    return false;
                }
            } else if (linkRate[id] + c.counts[j] * c.rate > capacity(id) * (1 - SPARE)) {
                return false;
            }
        }
        return true;
    }

    /** Starts a class at its rate: nothing already running changes (see {@link FlowClass}). */
    private void startClass(FlowClass sym, long base, String owner, PhaseRun run, long now, boolean counted) {
        ActiveFlow c = new ActiveFlow(base + sym.index[0], sym.flows[0], owner, run, sym.bytes, now);
        classesStarted++;
        c.members = sym;
        c.memberBase = base;
        c.links = sym.links;
        c.sharedSlot = sym.shares ? new int[sym.links.length] : null;
        if (sym.shares) {
            sharingClasses++;
        }
        c.rate = sym.rate;
        for (int j = 0; j < sym.links.length; j++) {
            int id = sym.links[j];
            int count = sym.counts[j];
            if (sym.binding[j]) {
                // no flow is rated on a binding link while the class runs: only the class is there
                bindingClass[id] = c;
            } else {
                sharedOn.add(id, c, j);
                classRate[id] += count * sym.rate;
            }
            if (!counted) {
                load[id] += count;
            }
            addLinkRate(id, count * sym.rate, now);
            usage.carried(id, sym.bytes * count);
        }
        rerates++;
        flowsRerated += sym.flows.length;
        c.finishAt = now + (long) Math.ceil(c.remaining / sym.rate);
        finishing.update(c);
        armTimer();
    }

    /**
     * Gives a class's links back.
     *
     * @param finished whether it finished (its members leave the links' loads) or split (they stay, placed)
     */
    private void releaseClass(ActiveFlow c, boolean finished) {
        FlowClass sym = c.members;
        if (sym.shares) {
            sharingClasses--;
        }
        for (int j = 0; j < sym.links.length; j++) {
            int id = sym.links[j];
            if (sym.binding[j]) {
                bindingClass[id] = null;
            } else {
                sharedOn.remove(id, c.sharedSlot[j]);
                // the last class off a link leaves exactly nothing, not a rounding residue
                classRate[id] = sharedOn.count(id) == 0 ? 0 : classRate[id] - sym.counts[j] * sym.rate;
            }
            if (finished) {
                load[id] -= sym.counts[j];
            }
        }
    }

    /**
     * Replaces a class by its members, placed on their links with the bytes, rate and finish
     * time they share (the links' rate totals stay as they are).
     *
     * @param joined where the members are added, or null
     */
    private void split(ActiveFlow c, long now, List<ActiveFlow> joined) {
        settle(c, now);
        FlowClass sym = c.members;
        long finish = c.finishAt;
        c.finishAt = Long.MAX_VALUE;
        finishing.update(c);
        c.done = true;
        releaseClass(c, false);
        for (int k = 0; k < sym.flows.length; k++) {
            ActiveFlow m = new ActiveFlow(c.memberBase + sym.index[k], sym.flows[k], c.owner, c.phase, c.remaining, now);
            m.rate = c.rate;
            place(m, sym.routes[k], true);
            m.finishAt = finish;
            finishing.update(m);
            if (joined != null) {
                joined.add(m);
            }
        }
    }

    /** Splits the classes for which any of these links is binding. */
    private void splitClassesOn(int[] ids, long now) {
        for (int id : ids) {
            ActiveFlow c = bindingClass[id];
            if (c != null) {
                split(c, now, null);
            }
        }
    }

    /** Splits every class crossing a link, binding or not; their members join {@code joined} (or null). */
    private void splitAllOn(int id, long now, List<ActiveFlow> joined) {
        if (bindingClass[id] != null) {
            split(bindingClass[id], now, joined);
        }
        while (sharedOn.count(id) > 0) {
            split(sharedOn.at(id, 0), now, joined);
        }
    }

    /**
     * Most links whose loads a phase's kept choices are compared on ({@link ChosenRoutes}): a
     * direct all-to-all inside a leaf-spine scalable unit reads 512; a phase reading more (rings
     * across a three-tier fabric read most of its spine and core links) chooses afresh at every start.
     */
    private static final int MAX_READS = 4096;
    /** Marks a memoised flow whose adaptive route is chosen afresh at every start. */
    private static final Route CHOSEN_PER_START = new Route(List.of());

    private long latencyOf(List<Link> links) {
        long latency = 0;
        for (Link l : links) {
            latency += states.latencyNs(l);
        }
        return latency;
    }

    /** @param counted whether the flow is counted in {@link #load} already */
    private void place(ActiveFlow a, Route route, boolean counted) {
        splitClassesOn(route.sharedIds(), a.updatedAt);
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
    private void unplace(ActiveFlow a) {
        for (int h = 0; h < a.links.length; h++) {
            int id = a.links[h];
            onLink.remove(id, a.slot[h]);
            load[id]--;
        }
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
        splitAllOn(link.id(), now, null);
        states.setFactor(link.id(), capacityFactor);
        states.setExtraLatencyNs(link.id(), extraLatencyNs);
        List<ActiveFlow> affected = new ArrayList<>(flowsOnLink(link.id()));
        IntList changed = new IntList();
        changed.add(link.id());
        if (capacityFactor == 0) {
            for (ActiveFlow a : affected) {
                settle(a, now);
                clearRate(a, now);
                for (int id : a.links) {
                    changed.add(id);
                }
                unplace(a);
                place(a, Routes.of(topology, a.spec, states, a.owner, linkLoad), false);
            }
        }
        rerate(affected, changed, now);
    }

    private List<ActiveFlow> flowsOnLink(int link) {
        return onLink.list(link);
    }

    /** Whether a link limits some flow now: saturated (within {@link #TIGHT}), or so lightly used that crossing it is cheap. */
    private boolean tight(int id) {
        return onLink.count(id) <= fewFlows || linkRate[id] >= capacity(id) * (1 - TIGHT);
    }

    /** A link's capacity in its current state, bytes per ns. */
    private double capacity(int id) {
        return nominal[id] * states.factor(id);
    }

    private void settle(ActiveFlow a, long now) {
        a.remaining = Math.max(0, a.remaining - a.rate * (now - a.updatedAt));
        a.updatedAt = now;
    }

    /** Removes a flow's rate from its links' totals before it leaves them. */
    private void clearRate(ActiveFlow a, long now) {
        if (a.rate > 0) {
            for (int id : a.links) {
                addLinkRate(id, -a.rate, now);
            }
            a.rate = 0;
        }
    }

    /** Re-rates what the new or re-routed flows {@code seeds} can reach, at time {@code now}. */
    private void rerate(List<ActiveFlow> seeds, long now) {
        rerate(seeds, NO_LINKS, now);
    }

    private static final IntList NO_LINKS = new IntList();

    /**
     * Re-rates, at time {@code now}, the flows that {@code seeds} and the flows on {@code seedLinks}
     * reach through tight links (the seed links are crossed whatever their load: they changed).
     * Finishing flows hand over their tight links rather than their neighbours: a spine link
     * carries hundreds of flows, and listing them once per finishing flow cost more than the rating.
     */
    private void rerate(List<ActiveFlow> seeds, IntList seedLinks, long now) {
        rerates++;
        long pass = rerates;
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
            armTimer();
            return;
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
            if (sharingClasses > 0) {
                splitOnSaturated(flows, now, pass);
            }
            // a saturated link whose flows were all rated already offered its whole capacity:
            // crossing it changes nothing, so only new flows call for another rating
            if (flows.size() == before) {
                break;
            }
        }
        flowsRerated += flows.size();
        for (int i = 0; i < flows.size(); i++) {
            ActiveFlow a = flows.get(i);
            settle(a, now);
            double r = newRate[i];
            if (r != a.rate) {
                for (int id : a.links) {
                    addLinkRate(id, r - a.rate, now);
                }
                a.rate = r;
            }
            long finish = r > 0 ? now + (long) Math.ceil(a.remaining / r) : Long.MAX_VALUE;
            if (finish != a.finishAt) {
                a.finishAt = finish;
                finishing.update(a);
            }
        }
        armTimer();
    }

    /**
     * A class is exact only while the links it shares have capacity to spare: each rated link
     * that the last rating saturated splits the classes sharing it, and their members join the
     * rating ({@code flows}).
     */
    private void splitOnSaturated(List<ActiveFlow> flows, long now, long pass) {
        for (int i = 0, n = rated.size(); i < n; i++) {
            int id = rated.get(i);
            if (sharedOn.count(id) > 0 && saturated(i)) {
                classesSplitBySaturation += sharedOn.count(id);
                splitMembers.clear();
                splitAllOn(id, now, splitMembers);
                for (ActiveFlow m : splitMembers) {
                    m.seenIn = pass;
                    flows.add(m);
                }
            }
        }
        splitMembers.clear();
    }

    /** Crosses link {@code l} in this pass: its flows not reached yet join the re-rating. */
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
        RatingProblem m = problem.sized(nl, nf);
        int[] index = componentIndex;
        for (int i = 0; i < nl; i++) {
            index[links.get(i)] = i;
            m.full[i] = capacity(links.get(i));
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
            m.offered[i] = i < crossedLinks ? Math.max(0, m.full[i] - classRate[id])
                    : Math.max(0, m.full[i] - (linkRate[id] - m.inside[i]));
        }
        return solver.solve(nl, m.offered, nf, m.hopStart, m.hopLink);
    }

    /** Whether link {@code li} of the last rating ended with no capacity to spare (within {@link #TIGHT}). */
    private boolean saturated(int li) {
        return solver.leftover(li) <= problem.full[li] * TIGHT;
    }

    private void addLinkRate(int id, double delta, long now) {
        double before = linkRate[id];
        double after = before + delta;
        if (Math.abs(after) < 1e-12) {
            after = 0;
        }
        if (before == 0 && after > 0) {
            linkBusySince[id] = now;
        } else if (before > 0 && after == 0) {
            usage.busy(id, now - linkBusySince[id]);
        }
        linkRate[id] = after;
        if (tracksRates) {
            usage.rateChange(linkOf[id], now, delta * 1e9);
        }
    }

    private void armTimer() {
        long first = finishing.firstTime();
        if (first < timerAt) {
            timerAt = first;
            long at = timerAt;
            kernel.schedule(at, () -> onTimer(at));
        }
    }

    /** Finishes every flow whose last byte has drained by now, then re-rates what they leave behind. */
    private void onTimer(long at) {
        if (at != timerAt) {
            return;
        }
        timerAt = Long.MAX_VALUE;
        long now = kernel.now();
        long timerPass = ++timerPasses;
        freed.clear();
        while (finishing.firstTime() <= now) {
            for (int i = 0, n = finishing.takeFirst(); i < n; i++) {
                complete(finishing.due(i), now, timerPass);
            }
        }
        if (!freed.isEmpty()) {
            rerate(List.of(), freed, now);
        } else {
            armTimer();
        }
    }

    /** Finishes a flow due now, or (rounding left a sliver) queues it for the next nanosecond. */
    private void complete(ActiveFlow a, long now, long timerPass) {
        settle(a, now);
        if (a.remaining > EPSILON_BYTES * Math.max(1, a.spec.bytes())) {
            a.finishAt = now + 1;
            finishing.update(a);
            return;
        }
        a.finishAt = Long.MAX_VALUE;
        if (a.members != null) {
            // its binding links carry nothing else and the links it shares have capacity to
            // spare, which limits nobody: no one is left to re-rate
            a.done = true;
            FlowClass sym = a.members;
            for (int j = 0; j < sym.links.length; j++) {
                addLinkRate(sym.links[j], -sym.counts[j] * a.rate, now);
            }
            releaseClass(a, true);
            a.phase.arrived(now + sym.latency, sym.flows.length);
            return;
        }
        for (int id : a.links) {
            // flows finishing together share links: list each once
            if (linkFreedIn[id] != timerPass && tight(id)) {
                linkFreedIn[id] = timerPass;
                freed.add(id);
            }
        }
        a.done = true;
        clearRate(a, now);
        unplace(a);
        a.phase.arrived(now + a.latency);
    }

    @Override
    public LinkUsage usage() {
        return usage;
    }

    /** How many phases ran as a flow class ({@link FlowClass}), split later or not. */
    public long classesStarted() {
        return classesStarted;
    }

    /** How many starts took an earlier start's adaptive routes, finding the loads they read unchanged ({@link ChosenRoutes}). */
    public long routeChoicesReused() {
        return routeChoicesReused;
    }

    /** How many classes a rating split because it saturated a link they shared. */
    public long classesSplitBySaturation() {
        return classesSplitBySaturation;
    }

    /** How many times components were re-rated. */
    public long rerates() {
        return rerates;
    }

    /** Flows re-rated, summed over all re-ratings. */
    public long flowsRerated() {
        return flowsRerated;
    }

    /** Current total rate on a link, bytes per ns. */
    double linkRate(int linkId) {
        return linkRate[linkId];
    }

    /** Reusable arrays of {@link #maxMin}: per link of the component, per flow, per (flow, link) hop. */
    private static final class RatingProblem {
        double[] full = new double[0];
        double[] inside = new double[0];
        double[] offered = new double[0];
        int[] hopStart = new int[1];
        int[] hopLink = new int[0];

        RatingProblem sized(int links, int flows) {
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
