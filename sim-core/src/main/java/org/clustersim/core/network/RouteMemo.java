package org.clustersim.core.network;

import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Route;
import org.clustersim.topology.Router;
import org.clustersim.topology.Topology;

/**
 * The flows' routes, memoised per phase while every link is healthy: plans are shared by every
 * layer and microbatch, so a route that cannot depend on load is looked up once per plan rather
 * than once per flow started. A phase's memo also says, once checked, whether its flows may run
 * as flow classes and which ({@link FlowClass}); where adaptive routing chooses some route at
 * every start, the choices are kept by the loads they read ({@link ChosenRoutes}).
 */
final class RouteMemo {
    /**
     * Most links whose loads a phase's kept choices are compared on ({@link ChosenRoutes}): a
     * direct all-to-all inside a leaf-spine scalable unit reads 512; a phase reading more (rings
     * across a three-tier fabric read most of its spine and core links) chooses afresh at every start.
     */
    private static final int MAX_READS = 4096;
    /** Marks a memoised flow whose adaptive route is chosen afresh at every start. */
    private static final Route CHOSEN_PER_START = new Route(List.of());

    /** A phase's memoised routes and, once checked, the classes among its flows. */
    static final class PhaseRoutes {
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

        /** The memo this belongs to (a phase's slot may hold another simulation's). */
        final RouteMemo memo;

        PhaseRoutes(RouteMemo memo, int flows) {
            this.memo = memo;
            routes = new Route[flows];
        }

        /** Whether its flows are checked and some may run as classes (at this start, with routes chosen per start). */
        boolean mayFormClasses() {
            return shaped && (perStart || !classes.isEmpty());
        }
    }

    /** Keyed by identity. */
    private final Map<Phase, PhaseRoutes> healthy = new IdentityHashMap<>();
    private final Topology topology;
    private final LinkStates states;
    /** Per link, what adaptive routing counts as its load (see {@link FlowNetwork}); read and written. */
    private final int[] load;
    /** The adaptive router's view of {@link #load}, or null with static routing. */
    private final Router.LinkLoad linkLoad;
    private final double[] nominal;
    private final FlowClass.Scratch classScratch;
    private final FlowStats stats;
    /** What the phases' kept adaptive choices may hold together ({@link ChosenRoutes.Budget}). */
    private final ChosenRoutes.Budget kept;
    /** What {@link #choose} chose last (transfers do not nest). */
    private Route[] chosenRoutes;
    private List<FlowClass> chosenClasses;

    /**
     * @param load     per link, the flows counted on it (adaptive choices read it; chosen routes are counted in it)
     * @param adaptive whether routes are chosen by load (adaptive routing) rather than by a static hash
     * @param nominal  per link, its nominal capacity in bytes per ns
     */
    RouteMemo(Topology topology, LinkStates states, int[] load, boolean adaptive, double[] nominal, FlowStats stats) {
        this.kept = new ChosenRoutes.Budget(ChosenRoutes.Budget.RUN);
        this.topology = topology;
        this.states = states;
        this.load = load;
        this.linkLoad = adaptive ? new Router.LinkLoad(load) : null;
        this.nominal = nominal;
        this.stats = stats;
        this.classScratch = new FlowClass.Scratch(load.length);
    }

    /**
     * The memo of a phase, made on its first start; null while some link is not healthy. The
     * memos live in a table of every phase started; the phase's {@linkplain Phase#networkState
     * slot} holds its memo too, read first: the table is looked up only when the slot holds
     * another simulation's (phases shared by simulations side by side) or nothing yet.
     */
    PhaseRoutes of(Phase phase) {
        if (states.version() != 0) {
            return null;
        }
        if (phase.networkState() instanceof PhaseRoutes mine && mine.memo == this) {
            return mine;
        }
        PhaseRoutes known = healthy.computeIfAbsent(phase, p -> new PhaseRoutes(this, p.flows().size()));
        phase.networkState(known);
        return known;
    }

    /** A flow's route now, as the router chooses it (by load with adaptive routing), memo aside. */
    Route now(Flow f, String owner) {
        return Routes.of(topology, f, states, owner, linkLoad);
    }

    /** The route of flow {@code i} of a phase, from its memo (or null) where it is fixed, memoised on first use. */
    Route route(PhaseRoutes known, int i, Flow f, String owner) {
        Route[] memo = known == null ? null : known.routes;
        Route route = memo == null ? null : memo[i];
        if (route == null || route == CHOSEN_PER_START) {
            route = now(f, owner);
            if (memo != null && memo[i] == null) {
                boolean fixed = linkLoad == null
                        || topology.router().adaptiveIsStatic(f.srcDevice(), f.dstDevice(), f.channel(), states);
                memo[i] = fixed ? route : CHOSEN_PER_START;
            }
        }
        return route;
    }

    /** After a phase's first start routed every flow: whether it is shaped for classes, and which (with fixed routes). */
    void check(PhaseRoutes known, List<Flow> flows) {
        if (known.checked) {
            return;
        }
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

    /**
     * Routes the flows of a phase {@linkplain PhaseRoutes#mayFormClasses that may form classes}
     * for this start, and finds its classes ({@link #routes()}, {@link #classes()}). Routes
     * chosen now are counted in the loads at once (adaptive choices see the flows routed before
     * them, as if placed), and are not counted again when placed.
     */
    void choose(PhaseRoutes known, List<Flow> flows, String owner) {
        Route[] routes = known.routes;
        List<FlowClass> found = known.classes;
        if (known.perStart) {
            if (known.chosen == null) {
                // at the second start: most phases that route per start start once (a bucket's
                // ring), and they need not pay for naming the links their choices read
                known.chosen = new ChosenRoutes(adaptiveReads(flows, known.routes), kept);
            }
            ChosenRoutes chosen = known.chosen;
            java.nio.IntBuffer loads = chosen.loads(load);
            ChosenRoutes.Choice earlier = chosen.find(loads);
            if (earlier != null) {
                // the loads the choices read are as an earlier start found them: so are the routes
                stats.routeChoicesReused++;
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
        chosenRoutes = routes;
        chosenClasses = found;
    }

    /** Every flow's route, as the last {@link #choose} chose them. */
    Route[] routes() {
        return chosenRoutes;
    }

    /** The classes among the flows on {@link #routes()}. */
    List<FlowClass> classes() {
        return chosenClasses;
    }

    /**
     * The union of the links the adaptive choices of a phase's flows read, sorted by id, or null
     * when the router cannot bound some flow's.
     */
    private int[] adaptiveReads(List<Flow> flows, Route[] memo) {
        BitSet union = new BitSet(load.length);
        int size = 0;
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
                if (!union.get(id)) {
                    union.set(id);
                    size++;
                }
            }
            // the union only grows: give up as soon as it is too large (on a three-tier fabric a
            // flow between two rail groups reads a hundred links or more, so a phase's ring soon is)
            if (size > MAX_READS) {
                return null;
            }
        }
        return union.stream().toArray();
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
                r = now(flows.get(i), owner);
            }
            routes[i] = r;
            for (int id : r.sharedIds()) {
                load[id]++;
            }
        }
        return routes;
    }
}
