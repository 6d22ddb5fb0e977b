package org.clustersim.core.network;

import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.topology.Route;

/**
 * The routes a phase's adaptive choices made at its earlier starts, and the flow classes they
 * formed, kept by the loads those choices read: the flows on every link the router names for
 * the phase's flows ({@link org.clustersim.topology.Router#adaptiveReads}). The router's choice
 * is a function of those loads, the phase's flows and the (healthy) fabric, so a start that
 * finds the loads as an earlier start found them takes that start's routes and classes without
 * choosing again. The pipeline schedule repeats itself: a 2,048-GPU direct all-to-all starts
 * its 16 phases 11,120 times, and from each phase's second start on meets 651 distinct loads.
 */
final class ChosenRoutes {
    /**
     * Choices kept per phase at most (a bound on memory where loads rarely repeat); later ones
     * are made afresh. A direct all-to-all's phases meet up to 75 distinct loads each.
     */
    static final int MAX_KEPT = 512;
    /** Links read by the phase's adaptive choices, by id; null where the router cannot bound them (nothing is kept by loads then). */
    private final int[] reads;
    private final Map<IntBuffer, Choice> byLoads = new HashMap<>();
    /** What the choices kept by loads may still hold, shared by every phase of a run. */
    private final Budget budget;
    /** The last choice made, whose routes a new choice shares where they are equal. */
    private Choice last;
    /**
     * Per flow, the distinct routes its choices have taken, so that choices share route objects:
     * a flow takes a few dozen routes over hundreds of choices.
     */
    private Route[][] taken;
    private int[] takenCount;

    /**
     * One start's choice: every flow's route, the classes among them, and the links they cross
     * with how many of the phase's flows cross each (to count them at once).
     */
    record Choice(Route[] routes, List<FlowClass> classes, int[] links, int[] counts) {
        /** Counts the phase's flows in the per-link loads, as routing them one by one does. */
        void count(int[] load) {
            for (int j = 0; j < links.length; j++) {
                load[links[j]] += counts[j];
            }
        }
    }

    /**
     * The memory every phase's kept choices may hold together in one run, counted in array
     * slots (loads, links, counts, routes and the classes' members): a 16K-GPU candidate whose
     * shared ring steps cross the fabric kept gigabytes of choices (thousands of loads each) when
     * each phase was bounded alone. Past the budget, choices are made afresh at every start, as
     * a phase's first start makes them; the routes chosen are the same either way.
     */
    static final class Budget {
        /** The budget of one run: 24M slots, about 150 MB; the 16K-GPU benchmarks keep well under it. */
        static final long RUN = 24L << 20;
        private long left;

        Budget(long slots) {
            left = slots;
        }

        /** Takes {@code slots} if they are left. */
        boolean take(long slots) {
            if (slots > left) {
                left = 0;
                return false;
            }
            left -= slots;
            return true;
        }

        /** The slots still left. */
        long left() {
            return left;
        }
    }

    ChosenRoutes(int[] reads, Budget budget) {
        this.reads = reads;
        this.budget = budget;
    }

    /** How many choices are kept by the loads they read. */
    int kept() {
        return byLoads.size();
    }

    /**
     * The loads the phase's choices would read now, or null when they are not bounded; a map key
     * (an int buffer's equality and hash are its contents').
     */
    IntBuffer loads(int[] load) {
        if (reads == null) {
            return null;
        }
        int[] values = new int[reads.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = load[reads[i]];
        }
        return IntBuffer.wrap(values);
    }

    /** The choice made at an earlier start under these loads (null loads: none), or null. */
    Choice find(IntBuffer loads) {
        Choice found = loads == null ? null : byLoads.get(loads);
        if (found != null) {
            last = found;
        }
        return found;
    }

    /**
     * Replaces each route by the equal one its flow took at an earlier choice (so that choices
     * share route objects), and says whether every route is the last choice's (then so are the
     * classes).
     */
    boolean share(Route[] routes) {
        if (reads == null) {
            // nothing is kept by loads: only the last choice is compared, link by link
            if (last == null) {
                return false;
            }
            for (int i = 0; i < routes.length; i++) {
                if (routes[i] != last.routes[i] && !Arrays.equals(routes[i].sharedIds(), last.routes[i].sharedIds())) {
                    return false;
                }
            }
            return true;
        }
        intern(routes);
        if (last == null) {
            return false;
        }
        for (int i = 0; i < routes.length; i++) {
            if (routes[i] != last.routes[i]) {
                return false;
            }
        }
        return true;
    }

    /** Replaces each route by the equal one its flow took before, or records it as taken. */
    private void intern(Route[] routes) {
        if (taken == null) {
            taken = new Route[routes.length][];
            takenCount = new int[routes.length];
        }
        for (int i = 0; i < routes.length; i++) {
            Route r = routes[i];
            Route[] mine = taken[i];
            int n = takenCount[i];
            int k = 0;
            while (k < n && mine[k] != r && !Arrays.equals(mine[k].sharedIds(), r.sharedIds())) {
                k++;
            }
            if (k < n) {
                routes[i] = mine[k];
                continue;
            }
            if (mine == null || n == mine.length) {
                mine = mine == null ? new Route[2] : Arrays.copyOf(mine, n * 2);
                taken[i] = mine;
            }
            mine[n] = r;
            takenCount[i] = n + 1;
        }
    }

    /** The array slots a kept choice holds: its loads, links, counts, routes and its classes' members and links. */
    private static long slots(IntBuffer loads, Choice c) {
        long n = loads.capacity() + 2L * c.links().length + c.routes().length;
        for (FlowClass k : c.classes()) {
            n += 3L * k.flows.length + 3L * k.links.length;
        }
        return n;
    }

    /** The last choice's classes. */
    List<FlowClass> lastClasses() {
        return last.classes;
    }

    /**
     * Keeps this start's choice under the loads it read (taken before its routes were counted;
     * null: kept only as the last choice).
     *
     * @param linkCount per link, zero, left zero
     */
    void remember(IntBuffer loads, Route[] routes, List<FlowClass> classes, int[] linkCount) {
        IntList links = new IntList();
        for (Route r : routes) {
            for (int id : r.sharedIds()) {
                if (linkCount[id]++ == 0) {
                    links.add(id);
                }
            }
        }
        int[] ids = Arrays.copyOf(links.a, links.size);
        int[] counts = new int[ids.length];
        for (int j = 0; j < ids.length; j++) {
            counts[j] = linkCount[ids[j]];
            linkCount[ids[j]] = 0;
        }
        last = new Choice(routes, classes, ids, counts);
        if (loads != null && byLoads.size() < MAX_KEPT && budget.take(slots(loads, last))) {
            byLoads.put(loads, last);
        }
    }
}
