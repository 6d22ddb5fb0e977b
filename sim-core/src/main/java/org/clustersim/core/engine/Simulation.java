package org.clustersim.core.engine;

import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.core.network.PointToPointNetwork;
import org.clustersim.topology.Topology;

/**
 * One simulated run of a task graph on a topology: a fresh DSOL kernel, the network model,
 * and the engine, wired together.
 */
public final class Simulation {
    private Simulation() {
    }

    /** Runs the graph to completion and returns what happened. */
    public static Timeline run(TaskGraph graph, Topology topology) {
        if (graph.devices().size() > topology.deviceCount()) {
            throw new IllegalArgumentException("task graph uses " + graph.devices().size()
                    + " devices but topology " + topology.name() + " has " + topology.deviceCount());
        }
        DsolKernel kernel = new DsolKernel();
        Counters counters = new Counters();
        PointToPointNetwork network = new PointToPointNetwork(topology, kernel, counters);
        return new Engine(graph, kernel, network, counters).run();
    }
}
