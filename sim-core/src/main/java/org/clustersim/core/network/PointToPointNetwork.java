package org.clustersim.core.network;

import org.clustersim.core.engine.Counters;
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
 * <p>It also counts the bytes each link carried and records each link's throughput (GB/s)
 * as a counter track while a flow serialises onto it.
 */
public final class PointToPointNetwork implements Network {
    private final Topology topology;
    private final SimKernel kernel;
    private final long[] linkBytes;
    private final Counters counters;
    private final int[] linkTrack;

    public PointToPointNetwork(Topology topology, SimKernel kernel, Counters counters) {
        this.topology = topology;
        this.kernel = kernel;
        this.counters = counters;
        this.linkBytes = new long[topology.links().size()];
        this.linkTrack = new int[topology.links().size()];
        java.util.Arrays.fill(linkTrack, -1);
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
        double rate = route.bottleneckBytesPerS();
        long serialNs = (long) Math.ceil(f.bytes() * 1e9 / rate);
        if (f.bytes() > 0) {
            long now = kernel.now();
            for (Link l : route.links()) {
                linkBytes[l.id()] += f.bytes();
                int track = trackOf(l);
                counters.add(track, now, rate / 1e9);
                counters.add(track, now + serialNs, -rate / 1e9);
            }
        }
        return route.latencyNs() + serialNs;
    }

    private int trackOf(Link l) {
        int t = linkTrack[l.id()];
        if (t < 0) {
            t = counters.track("link " + l.name(), "GB/s");
            linkTrack[l.id()] = t;
        }
        return t;
    }

    /** Bytes that crossed link {@code linkId} so far. */
    public long bytesCarried(int linkId) {
        return linkBytes[linkId];
    }
}
