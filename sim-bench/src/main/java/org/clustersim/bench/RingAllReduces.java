package org.clustersim.bench;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.Simulation;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.CollectiveStudy;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.topology.Topology;

/**
 * The fabric benches' workload: concurrent ring all-reduces of one size, one per group of
 * devices, run together on the flow model so that they share the fabric's links as the
 * data-parallel gradient reductions of a training step do.
 *
 * @param topology the fabric
 * @param bytes    each all-reduce's size
 * @param rings    one ring plan per group
 */
record RingAllReduces(Topology topology, long bytes, List<CollectiveStudy.Spec> rings) {

    /** A ring all-reduce of {@code bytes} over each group. */
    static RingAllReduces over(Topology topology, long bytes, List<int[]> groups) {
        List<CollectiveStudy.Spec> rings = new ArrayList<>();
        for (int[] devices : groups) {
            CommGroup g = new CommGroup(devices);
            rings.add(new CollectiveStudy.Spec(CollectiveOp.ALL_REDUCE, g, bytes,
                    Collectives.plan("ring", CollectiveOp.ALL_REDUCE, g, bytes, topology)));
        }
        return new RingAllReduces(topology, bytes, rings);
    }

    /** Runs them all at once under {@code routing}. */
    CollectiveStudy.Result run(Simulation.Routing routing) {
        return new CollectiveStudy(topology, Simulation.Fidelity.FLOW, routing, List.of()).run(rings);
    }

    /** The slowest ring's time, ns. */
    static long slowestNs(CollectiveStudy.Result r) {
        long slowest = 0;
        for (long d : r.durationsNs()) {
            slowest = Math.max(slowest, d);
        }
        return slowest;
    }

    /** Bus bandwidth of a ring of {@code ranks} that took {@code ns}: 2 (n - 1) / n bytes over time, bytes/s. */
    double busBandwidth(long ns, int ranks) {
        return bytes / (ns / 1e9) * 2 * (ranks - 1) / ranks;
    }
}
