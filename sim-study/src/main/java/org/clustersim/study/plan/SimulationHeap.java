package org.clustersim.study.plan;

import org.clustersim.core.engine.TaskGraph;

/**
 * The heap that a plan's simulations in one JVM take together. A 16K-GPU candidate with TP
 * overlap and ring attention on 2,048-GPU replicas holds 3.4 M tasks on 120 M stream slots: its
 * graph and the engine's depth-ordered copy of it take about 3 GB, so two such candidates
 * simulated at once ran out of a 6 GB heap. Each simulation builds its graph in turn, and only
 * while the simulations running hold at most half of the limit; it then holds its graph's
 * {@linkplain #footprint footprint} until it ends, waiting first until that fits beside the
 * others (or runs alone). Small candidates still run side by side; large ones run one at a time.
 */
final class SimulationHeap {
    /** One per JVM: the simulations of every plan running in it share the heap. */
    static final SimulationHeap JVM = new SimulationHeap(Runtime.getRuntime().maxMemory() / 20 * 9);

    private final long limit;
    private long held;
    private boolean building;

    /** @param limit bytes the simulations may hold together */
    SimulationHeap(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("heap limit must be positive: " + limit);
        }
        this.limit = limit;
    }

    /**
     * Waits for the turn to build a graph: no other simulation building one, and the ones running
     * holding at most half of the limit. End the turn with {@link #hold} or {@link #endTurn}.
     */
    synchronized void awaitTurn() throws InterruptedException {
        while (building || held > limit / 2) {
            wait();
        }
        building = true;
    }

    /**
     * Ends the turn, holding {@code bytes} once they fit beside what the running simulations hold
     * (at once when none does); release them with {@link #release}. Interrupted, it ends the turn
     * holding nothing.
     */
    synchronized void hold(long bytes) throws InterruptedException {
        try {
            while (held > 0 && held + bytes > limit) {
                wait();
            }
            held += bytes;
        } finally {
            endTurn();
        }
    }

    /** Ends the turn without holding anything (the build failed). */
    synchronized void endTurn() {
        building = false;
        notifyAll();
    }

    /** Gives back what {@link #hold} took. */
    synchronized void release(long bytes) {
        held -= bytes;
        notifyAll();
    }

    /** Bytes held now. */
    synchronized long held() {
        return held;
    }

    /**
     * The heap a simulation of {@code graph} takes, in bytes: the graph's rows (per task its name,
     * tag, work and row starts; per stream slot the stream, the next task on it and the stream's
     * queue entry; per dependency both directions), twice but for the queues (the engine runs a
     * depth-ordered copy that maps the queues it shares), and per task the engine's state and the
     * timeline (32 bytes), plus the name's text where the task kept one (56 bytes on average: a
     * 405B candidate's 600,912 tasks had 472,095 distinct names of 27 characters).
     */
    static long footprint(TaskGraph graph) {
        long tasks = graph.taskCount();
        long slots = 0;
        long deps = 0;
        long named = 0;
        for (int t = 0; t < tasks; t++) {
            slots += graph.streamCount(t);
            deps += graph.depCount(t);
            if (graph.named(t)) {
                named++;
            }
        }
        long rows = 25 * tasks + 12 * slots + 8 * deps;
        return 2 * rows - 4 * slots + 32 * tasks + 56 * named;
    }
}
