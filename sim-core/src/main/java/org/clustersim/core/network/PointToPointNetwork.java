package org.clustersim.core.network;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Network;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.kernel.SimKernel;
import org.clustersim.topology.Link;
import org.clustersim.topology.Route;
import org.clustersim.topology.Topology;

/**
 * The simplest network: every flow runs alone at the bottleneck bandwidth of its route and
 * arrives after the route's summed per-hop latency plus {@code bytes / bandwidth}. Flows do
 * not share capacity, so this model shows no congestion; it is exact for traffic that never
 * overlaps on a link, such as the stage-to-stage sends of one pipeline.
 *
 * <p>It also counts the bytes each link carried, for the per-link table of a run.
 */
public final class PointToPointNetwork implements Network {
    private final Topology topology;
    private final SimKernel kernel;
    private final long[] linkBytes;

    public PointToPointNetwork(Topology topology, SimKernel kernel) {
        this.topology = topology;
        this.kernel = kernel;
        this.linkBytes = new long[topology.links().size()];
    }

    @Override
    public void transfer(Phase phase, Runnable onDone) {
        long now = kernel.now();
        long done = now;
        for (Flow f : phase.flows()) {
            done = Math.max(done, now + flowTimeNs(f));
        }
        kernel.schedule(done, onDone);
    }

    /** Time one flow takes on its own: route latency plus serialisation at the bottleneck. */
    long flowTimeNs(Flow f) {
        if (f.srcDevice() == f.dstDevice()) {
            return 0;
        }
        Route route = topology.route(f.srcDevice(), f.dstDevice());
        for (Link l : route.links()) {
            linkBytes[l.id()] += f.bytes();
        }
        return route.latencyNs() + (long) Math.ceil(f.bytes() * 1e9 / route.bottleneckBytesPerS());
    }

    /** Bytes that crossed link {@code linkId} so far. */
    public long bytesCarried(int linkId) {
        return linkBytes[linkId];
    }
}
