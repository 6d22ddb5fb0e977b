package org.clustersim.core.engine;

import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.core.network.FlowNetwork;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;

/**
 * The smallest cluster the engine tests run on: two H100s on one server under one switch, 5 ns a
 * hop, so a transfer's time is easy to compute by hand. Shared by the engine, interference and idle
 * breakdown tests instead of each building its own.
 */
public final class TwoGpus {
    /** 100 GB/s per direction. */
    public static final Topology FABRIC = fabric(100);

    private TwoGpus() {
    }

    /** Two GPUs on one switch at {@code gbps} GB/s per direction, 5 ns a hop. */
    public static Topology fabric(double gbps) {
        return new SwitchedClusterSpec("test", AcceleratorSpec.H100_SXM, 1, 2, gbps * 1e9, 5, 50e9, 0, 0).build();
    }

    /** A task-graph builder with the two GPUs, gpu0 and gpu1, on server 0. */
    public static TaskGraph.Builder devices() {
        TaskGraph.Builder b = TaskGraph.builder();
        b.device("gpu0", 0);
        b.device("gpu1", 0);
        return b;
    }

    /** {@code g} simulated on {@code fabric} with healthy links, full-speed devices and no interference. */
    public static Timeline run(TaskGraph g, Topology fabric) {
        DsolKernel k = new DsolKernel();
        Counters counters = new Counters();
        return new Engine(g, k, new FlowNetwork(fabric, k, LinkStates.healthy(fabric), counters), counters).run();
    }
}
